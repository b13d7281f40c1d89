import { rangeNode } from "./definition";
import { defineBehaviour } from "../types";
import { getProperty, setProperty } from "../../runtime/properties";

/** Node-RED 4.1's range (16-range.js): scale, clamp, roll or drop, with optional rounding. */
export const rangeBehaviour = defineBehaviour(rangeNode, (ctx, c) => {
  let { min_in: minIn, max_in: maxIn, min_out: minOut, max_out: maxOut } = c;
  // Equal ends pass the configuration's check when variables (${NAME}) give them: scaling divides by zero, as Node-RED's would; said once.
  if (minIn === maxIn) ctx.log.warn(`the input range's ends are both ${minIn}: every value scales to NaN or Infinity`);
  // As Node-RED: a reversed input range swaps both ranges' ends.
  if (minIn > maxIn) {
    [minIn, maxIn] = [maxIn, minIn];
    [minOut, maxOut] = [maxOut, minOut];
  }
  if (c.round) {
    maxOut = Math.floor(maxOut);
    minOut = Math.ceil(minOut);
  }
  return {
    input(msg, send, done) {
      const value = getProperty(msg, c.property);
      if (value === undefined) {
        send(msg);
        return done();
      }
      let n = Number(value);
      if (Number.isNaN(n)) return done();
      if (c.action === "drop" && (n < minIn || n > maxIn)) return done();
      if (c.action === "clamp") {
        if (n < minIn) n = minIn;
        if (n > maxIn) n = maxIn;
      }
      if (c.action === "roll") {
        const divisor = maxIn - minIn;
        n = (((n - minIn) % divisor) + divisor) % divisor + minIn;
      }
      let result = ((n - minIn) / (maxIn - minIn)) * (maxOut - minOut) + minOut;
      if (c.round) result = Math.round(result);
      setProperty(msg, c.property, result);
      send(msg);
      done();
    },
  };
});
