import type { NodeFactory } from "../runtime/types";
import { injectBehaviour } from "./inject/behaviour";
import { debugBehaviour } from "./debug/behaviour";
import { changeBehaviour } from "./change/behaviour";
import { switchBehaviour } from "./switch/behaviour";
import { templateBehaviour } from "./template/behaviour";
import { jsonBehaviour } from "./json/behaviour";
import { delayBehaviour } from "./delay/behaviour";
import { commentBehaviour } from "./comment/behaviour";
import { deviceInBehaviour } from "./device-in/behaviour";
import { deviceOutBehaviour } from "./device-out/behaviour";
import { httpInBehaviour } from "./http-in/behaviour";
import { httpResponseBehaviour } from "./http-response/behaviour";
import { httpRequestBehaviour } from "./http-request/behaviour";
import { functionBehaviour } from "./function/behaviour";
import { catchBehaviour } from "./catch/behaviour";
import { yamlBehaviour } from "./yaml/behaviour";
import { xmlBehaviour } from "./xml/behaviour";
import { htmlBehaviour } from "./html/behaviour";
import { csvBehaviour } from "./csv/behaviour";
import { linkInBehaviour } from "./link-in/behaviour";
import { linkOutBehaviour } from "./link-out/behaviour";
import { linkCallBehaviour } from "./link-call/behaviour";
import { statusBehaviour } from "./status/behaviour";
import { completeBehaviour } from "./complete/behaviour";
import { splitBehaviour } from "./split/behaviour";
import { joinBehaviour } from "./join/behaviour";
import { batchBehaviour } from "./batch/behaviour";
import { sortBehaviour } from "./sort/behaviour";
import { filterBehaviour } from "./filter/behaviour";
import { rangeBehaviour } from "./range/behaviour";
import { triggerBehaviour } from "./trigger/behaviour";
import { junctionBehaviour } from "./junction/behaviour";

/** Behaviour per node type; a type without one (unknown) never runs. */
export function builtinBehaviours(): Map<string, NodeFactory> {
  return new Map<string, NodeFactory>([
    ["inject", injectBehaviour],
    ["debug", debugBehaviour],
    ["change", changeBehaviour],
    ["switch", switchBehaviour],
    ["template", templateBehaviour],
    ["json", jsonBehaviour],
    ["delay", delayBehaviour],
    ["comment", commentBehaviour],
    ["device-in", deviceInBehaviour],
    ["device-out", deviceOutBehaviour],
    ["http-in", httpInBehaviour],
    ["http-response", httpResponseBehaviour],
    ["http-request", httpRequestBehaviour],
    ["function", functionBehaviour],
    ["catch", catchBehaviour],
    ["yaml", yamlBehaviour],
    ["xml", xmlBehaviour],
    ["html", htmlBehaviour],
    ["csv", csvBehaviour],
    ["link-in", linkInBehaviour],
    ["link-out", linkOutBehaviour],
    ["link-call", linkCallBehaviour],
    ["status", statusBehaviour],
    ["complete", completeBehaviour],
    ["split", splitBehaviour],
    ["join", joinBehaviour],
    ["batch", batchBehaviour],
    ["sort", sortBehaviour],
    ["filter", filterBehaviour],
    ["range", rangeBehaviour],
    ["trigger", triggerBehaviour],
    ["junction", junctionBehaviour],
  ]);
}
