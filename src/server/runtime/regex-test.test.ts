/**
 * A switch rule's pattern with lookaheads after a leading `^` (compileRegexTest): tested as
 * JavaScript's RegExp tests it (Node-RED's switch: `(a + "").match(new RegExp(b, d ? "i" : ""))`),
 * each case checked against V8 here, in linear time on RE2.
 */
import { describe, expect, it } from "vitest";
import { compileRegexTest, regexTestProblem } from "./regex";

const cases: Array<{ pattern: string; flags?: "i"; inputs: string[] }> = [
  // A Zigbee2MQTT topic router's last rule (ninth survey): every topic but those ending in get or set.
  { pattern: "^(?!.*get$|.*set$).*$", inputs: ["zigbee2mqtt/lamp", "zigbee2mqtt/lamp/set", "zigbee2mqtt/lamp/get", "x/settings", "", "get", "a/set/b", "line\nset"] },
  { pattern: "^(?!foo)", inputs: ["foo", "food", "bar", "", "xfoo"] },
  { pattern: "^(?=.*\\d)(?=.*[a-z])(?!.*\\s).{8,}$", inputs: ["abcdefg1", "abcdefgh", "12345678", "abc 1defg", "a1", "ABCDEFG1"] },
  { pattern: "^(?=.*\\d)(?=.*[a-z])(?!.*\\s).{8,}$", flags: "i", inputs: ["ABCDEFG1", "ABCDEFGH"] },
  { pattern: "^(?=sensor)(?:sensor/[0-9]+)(/temp)?$", inputs: ["sensor/1", "sensor/12/temp", "sensor/x", "sensors/1"] },
  { pattern: "^(?!Error)", flags: "i", inputs: ["error: x", "ok", "ERROR"] },
  // Without lookaround: RE2 as before.
  { pattern: "set$", inputs: ["a/set", "a/get"] },
];

describe("compileRegexTest", () => {
  it.each(cases)("$pattern ($flags) tests as JavaScript's RegExp", ({ pattern, flags, inputs }) => {
    expect(regexTestProblem(pattern)).toBeNull();
    const ours = compileRegexTest(pattern, { caseInsensitive: flags === "i" });
    const js = new RegExp(pattern, flags ?? "");
    for (const input of inputs) expect([input, ours.test(input)]).toEqual([input, js.test(input)]);
  });

  it("still refuses lookaround elsewhere, backreferences, and a top-level | after the lookaheads", () => {
    expect(regexTestProblem("foo(?!bar)")).toMatch(/not a supported regular expression/);
    expect(regexTestProblem("^(?!a)b|c")).toMatch(/not a supported regular expression/);
    expect(regexTestProblem("^(?!(a)\\1)x")).toMatch(/not a supported regular expression/);
    expect(regexTestProblem("^(?=a(?!b))")).toMatch(/not a supported regular expression/);
  });
});
