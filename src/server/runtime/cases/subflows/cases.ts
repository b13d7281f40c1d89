import type { DiffCase, NodeRedNode } from "../../../../test/node-red-diff/types";

/**
 * Subflow instances against Node-RED 4.1 (after Subflow_spec.js): used twice, nested, env
 * properties (every type, instance over definition over flow), the status output, errors caught
 * inside and passed out, several outputs, catch/status/complete scoped to the instance, and the
 * instance's own flow context. Node ids are valid ids of ours, so no import renames them.
 */
const fn = (id: string, func: string, wires: string[][] = [[]], extra: Record<string, unknown> = {}): NodeRedNode => ({
  id,
  type: "function",
  name: "",
  func,
  outputs: wires.length,
  noerr: 0,
  initialize: "",
  finalize: "",
  libs: [],
  ...extra,
  wires,
});
type PortWire = { id: string; port?: number };
/** A subflow definition: `input` the inner node ids its input is wired to, `outputs[n]` what reaches output n. */
const subflow = (id: string, name: string, input: string[], outputs: PortWire[][], extra: Record<string, unknown> = {}): NodeRedNode => ({
  id,
  type: "subflow",
  name,
  info: "",
  category: "",
  in: input.length > 0 ? [{ x: 50, y: 30, wires: input.map((w) => ({ id: w })) }] : [],
  out: outputs.map((wires, i) => ({ x: 300, y: 30 + 40 * i, wires: wires.map((w) => ({ id: w.id, port: w.port ?? 0 })) })),
  env: [],
  ...extra,
});
const inside = (z: string, node: NodeRedNode): NodeRedNode => ({ x: 150, y: 60, ...node, z });
const instance = (id: string, of: string, wires: string[][], extra: Record<string, unknown> = {}): NodeRedNode => ({ id, type: `subflow:${of}`, name: "", env: [], ...extra, wires });
const start = (targets: string[]) => ({ id: "start", type: "change", name: "start", rules: [{ t: "set", p: "started", pt: "msg", to: "true", tot: "bool" }], wires: [targets] });
/** A node that fails for every message: a link call whose target never answers ("timeout"), as catch's own cases. */
const failing = (id: string, name: string) => ({ id, type: "link call", name, links: ["silent"], linkType: "static", timeout: "0.05", wires: [[]] });
const silent = { id: "silent", type: "link in", name: "", links: [], wires: [] };

const greet = [
  subflow("sfgreet", "greet", ["sgfn"], [[{ id: "sgfn" }]], { env: [{ name: "GREETING", type: "str", value: "hello" }] }),
  inside("sfgreet", {
    id: "sgfn",
    type: "change",
    name: "greets",
    rules: [
      { t: "set", p: "payload", pt: "msg", to: "${GREETING} ${NR_SUBFLOW_NAME} ${NR_NODE_ID}", tot: "env" },
      { t: "set", p: "topic", pt: "msg", to: "GREETING", tot: "env" },
    ],
    wires: [[]],
  }),
];

export const cases: DiffCase[] = [
  {
    name: "a subflow instance in a group: its nodes read the instance's env, then the group's, then the flow's",
    input: "gsinst",
    nodes: [
      {
        id: "gsgroup", type: "group", name: "Lights", style: {}, nodes: ["gsinst"], x: 10, y: 10, w: 300, h: 100,
        env: [
          { name: "COLOR", type: "str", value: "green" },
          { name: "OWN", type: "str", value: "from the group" },
        ],
      },
      instance("gsinst", "sfgroup", [["out"]], { g: "gsgroup" }),
    ],
    subflows: [
      subflow("sfgroup", "grouped", ["gsfn"], [[{ id: "gsfn" }]], { env: [{ name: "OWN", type: "str", value: "from the definition" }] }),
      inside("sfgroup", fn("gsfn", "msg.payload = [env.get('COLOR'), env.get('OWN'), env.get('$parent.OWN'), env.get('NR_GROUP_NAME')]; return msg;")),
    ],
    send: [{ msg: { payload: "x" } }],
    expect: 1,
  },
  {
    // Node-RED's Group inside a Subflow: a group of the definition reads the instance's env above
    // its own, and its nodes read it first.
    name: "a group inside a subflow's definition: its nodes read the group's env, then the instance's, and NR_GROUP_*",
    input: "igi",
    nodes: [
      { id: "igcanvas", type: "group", name: "On the canvas", style: {}, nodes: ["igi"], x: 10, y: 10, w: 300, h: 100, env: [{ name: "CANVAS", type: "str", value: "canvas group" }] },
      instance("igi", "sfig", [["out"], ["out2"]], { g: "igcanvas", env: [{ name: "OWN", type: "str", value: "from the instance" }] }),
    ],
    subflows: [
      subflow("sfig", "inner groups", ["igfn", "igout"], [[{ id: "igfn" }], [{ id: "igout" }]], {
        env: [
          { name: "OWN", type: "str", value: "from the definition" },
          { name: "KEEP", type: "str", value: "definition only" },
        ],
      }),
      {
        id: "igg", type: "group", z: "sfig", name: "Inner", style: {}, nodes: ["igfn"], x: 10, y: 10, w: 300, h: 100,
        env: [
          { name: "TINT", type: "str", value: "blue" },
          { name: "KEEP", type: "str", value: "the group's" },
          { name: "DERIVED", type: "env", value: "OWN" },
        ],
      },
      inside(
        "sfig",
        fn("igfn", "msg.payload = [env.get('TINT'), env.get('KEEP'), env.get('$parent.KEEP'), env.get('OWN'), env.get('DERIVED'), env.get('CANVAS'), env.get('NR_GROUP_NAME'), env.get('NR_SUBFLOW_NAME')]; return msg;", [[]], { g: "igg" }),
      ),
      inside("sfig", { id: "igout", type: "change", name: "", rules: [{ t: "set", p: "payload", pt: "msg", to: "[$env('TINT'), $env('KEEP'), $env('NR_GROUP_NAME'), $env('CANVAS')]", tot: "jsonata" }], wires: [[]] }),
    ],
    send: [{ msg: { payload: "x" } }],
    expect: 2,
    orderPerCollector: "the function node's code, which names no flow or global context, runs in the sandbox's worker beside the change node's branch (the function node's help)",
  },
  {
    name: "an instance inside a group of another subflow's definition: its nodes read that group past their own instance's env",
    input: "ngo",
    nodes: [instance("ngo", "sfngouter", [["out"]], { env: [{ name: "LEVEL", type: "str", value: "outer instance" }] })],
    subflows: [
      subflow("sfngouter", "outer", ["ngin"], [[{ id: "ngin" }]]),
      { id: "nggrp", type: "group", z: "sfngouter", name: "Around the inner", style: {}, nodes: ["ngin"], x: 10, y: 10, w: 300, h: 100, env: [{ name: "AROUND", type: "str", value: "the outer definition's group" }, { name: "LEVEL", type: "str", value: "group" }] },
      inside("sfngouter", instance("ngin", "sfnginner", [[]], { g: "nggrp" })),
      subflow("sfnginner", "inner", ["ngfn"], [[{ id: "ngfn" }]], { env: [{ name: "MINE", type: "str", value: "inner" }] }),
      inside("sfnginner", fn("ngfn", "msg.payload = [env.get('MINE'), env.get('AROUND'), env.get('LEVEL'), env.get('$parent.LEVEL'), env.get('NR_GROUP_NAME')]; return msg;")),
    ],
    send: [{ msg: { payload: "x" } }],
    expect: 1,
  },
  {
    name: "an instance used twice, one overriding the definition's env property",
    nodes: [
      start(["first", "second"]),
      instance("first", "sfgreet", [["out1"]], { name: "first one", env: [{ name: "GREETING", type: "str", value: "hi" }] }),
      instance("second", "sfgreet", [["out2"]], { name: "second one" }),
    ],
    subflows: greet,
    send: [{ msg: { payload: "world" } }, { msg: { payload: "again" } }],
    expect: 4,
  },
  {
    name: "env properties of every type, the flow's variables above them",
    nodes: [
      start(["inst"]),
      instance("inst", "sfenv", [["out"]], {
        name: "typed",
        env: [
          { name: "NUM", type: "num", value: "7" },
          { name: "OVER", type: "str", value: "from the instance" },
        ],
      }),
    ],
    subflows: [
      subflow("sfenv", "env types", ["sefn"], [[{ id: "sefn" }]], {
        env: [
          { name: "NUM", type: "num", value: "42" },
          { name: "FLAG", type: "bool", value: "true" },
          { name: "OBJ", type: "json", value: '{"a":[1,2]}' },
          { name: "OVER", type: "str", value: "from the definition" },
          { name: "REF", type: "env", value: "TAB_VAR" },
          { name: "MIXED", type: "env", value: "<${OVER}|${TAB_VAR}>" },
          { name: "SUM", type: "jsonata", value: "1 + 2" },
          { name: "TAB_VAR", type: "env", value: "TAB_VAR" },
        ],
      }),
      inside(
        "sfenv",
        fn(
          "sefn",
          "msg.payload = { num: env.get('NUM'), flag: env.get('FLAG'), obj: env.get('OBJ'), over: env.get('OVER'), ref: env.get('REF'), mixed: env.get('MIXED'), sum: env.get('SUM'), self: env.get('TAB_VAR'), tab: env.get('TAB_ONLY'), flowName: env.get('NR_FLOW_NAME'), sid: env.get('NR_SUBFLOW_ID'), sname: env.get('NR_SUBFLOW_NAME'), spath: env.get('NR_SUBFLOW_PATH').split('/').slice(1).join('/'), types: [typeof env.get('NUM'), typeof env.get('FLAG'), typeof env.get('OBJ')] }; return msg;",
          [[]],
        ),
      ),
    ],
    env: { TAB_VAR: "tab value", TAB_ONLY: "only on the tab" },
    send: [{ msg: { payload: 1 } }],
    expect: 1,
  },
  {
    name: "${NAME} in the definition's node properties reads the instance's env",
    nodes: [start(["inst"]), instance("inst", "sfsub", [["out"]], { env: [{ name: "WHO", type: "str", value: "instance" }] })],
    subflows: [
      subflow("sfsub", "substitution", ["sschange"], [[{ id: "sschange" }]], { env: [{ name: "WHO", type: "str", value: "definition" }, { name: "N", type: "num", value: "5" }] }),
      inside("sfsub", {
        id: "sschange",
        type: "change",
        name: "",
        rules: [
          { t: "set", p: "payload", pt: "msg", to: "${WHO}", tot: "str" },
          { t: "set", p: "topic", pt: "msg", to: "WHO", tot: "env" },
          { t: "set", p: "n", pt: "msg", to: "N", tot: "env" },
          { t: "set", p: "text", pt: "msg", to: "n=${N} who=${WHO}", tot: "env" },
        ],
        wires: [[]],
      }),
    ],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
  },
  {
    name: "nested subflows: the inner instance reads the outer instance's env, $parent skips a level",
    nodes: [start(["outer"]), instance("outer", "sfouter", [["out"]], { name: "outer", env: [{ name: "LEVEL", type: "str", value: "outer instance" }] })],
    subflows: [
      subflow("sfouter", "outer", ["sofn"], [[{ id: "soinner" }]], { env: [{ name: "LEVEL", type: "str", value: "outer definition" }] }),
      inside("sfouter", fn("sofn", "msg.trail = ['outer:' + env.get('LEVEL')]; return msg;", [["soinner"]])),
      inside("sfouter", instance("soinner", "sfinner", [[]], { name: "inner" })),
      subflow("sfinner", "inner", ["sifn"], [[{ id: "sifn" }]], { env: [{ name: "OWN", type: "str", value: "inner definition" }] }),
      inside("sfinner", fn("sifn", "msg.trail.push('inner:' + env.get('LEVEL') + '/' + env.get('OWN') + '/' + env.get('$parent.OWN') + '/' + env.get('$parent.LEVEL') + '/' + env.get('NR_SUBFLOW_PATH').split('/').slice(1).join('/') + '/' + env.get('NR_NODE_PATH').split('/').slice(1).join('/')); return msg;")),
    ],
    send: [{ msg: { payload: "x" } }],
    expect: 1,
  },
  {
    name: "several outputs, an input wired straight to an output",
    nodes: [start(["multi"]), instance("multi", "sfmulti", [["out0"], ["out1"], ["out2"]])],
    subflows: [
      subflow("sfmulti", "multi", ["smsw"], [[{ id: "smsw", port: 0 }], [{ id: "smsw", port: 1 }, { id: "sfmulti" }], [{ id: "smsw", port: 1 }]]),
      inside("sfmulti", fn("smsw", "return msg.payload > 0 ? [msg, null] : [null, msg];", [[], []])),
    ],
    send: [{ msg: { payload: 1 } }, { msg: { payload: -1 } }],
    expect: 5,
  },
  {
    name: "the status output sets the instance's status, seen by the flow's status node",
    nodes: [
      start(["st"]),
      instance("st", "sfstatus", [[]], { name: "with status" }),
      { id: "watch", type: "status", name: "", scope: null, wires: [["out"]] },
    ],
    subflows: [
      subflow("sfstatus", "status", ["ssfn"], [], { status: { x: 200, y: 100, wires: [{ id: "ssfn", port: 0 }] } }),
      inside(
        "sfstatus",
        fn("ssfn", "const p = msg.payload; if (p === 1) msg.payload = 'text only'; else if (p === 2) msg.payload = { fill: 'red', shape: 'ring', text: 'object' }; else if (p === 3) msg.payload = [1, 2, 3]; else if (p === 4) { delete msg.payload; msg.status = { fill: 'green', shape: 'dot', text: 'from msg.status' }; } else msg.payload = { some: 'thing that is longer than thirty-two characters' }; return msg;"),
      ),
    ],
    send: [{ msg: { payload: 1 } }, { msg: { payload: 2 } }, { msg: { payload: 3 } }, { msg: { payload: 4 } }, { msg: { payload: 5 } }],
    expect: 5,
    compare: ["status"],
  },
  {
    name: "without a status output, inner statuses reach the flow's status nodes scoped to the instance",
    nodes: [
      start(["plain"]),
      instance("plain", "sfinnerstatus", [[]]),
      { id: "watchall", type: "status", name: "", scope: null, wires: [["out-all"]] },
      { id: "watchinst", type: "status", name: "", scope: ["plain"], wires: [["out-scoped"]] },
      { id: "watchother", type: "status", name: "", scope: ["start"], wires: [["out-other"]] },
    ],
    subflows: [subflow("sfinnerstatus", "inner status", ["sisfn"], []), inside("sfinnerstatus", fn("sisfn", "node.status({ fill: 'blue', shape: 'dot', text: 'busy ' + msg.payload }); return msg;", [[]], { name: "reporter" }))],
    send: [{ msg: { payload: 1 } }],
    expect: 2,
    compare: ["status"],
  },
  {
    name: "a status node inside the subflow keeps its statuses from the flow's",
    nodes: [start(["own"]), instance("own", "sfownstatus", [["out"]]), { id: "watchflow", type: "status", name: "", scope: null, wires: [["out-flow"]] }],
    subflows: [
      subflow("sfownstatus", "own status", ["sosfn"], [[{ id: "sosstatus" }]]),
      inside("sfownstatus", fn("sosfn", "node.status({ fill: 'yellow', shape: 'ring', text: 'inside' }); return null;", [[]], { name: "reports" })),
      inside("sfownstatus", { id: "sosstatus", type: "status", name: "", scope: null, wires: [[]] }),
    ],
    send: [{ msg: { payload: 1 } }],
    expect: 1,
    compare: ["status"],
  },
  {
    name: "an error caught inside the subflow does not reach the flow's catch nodes",
    nodes: [start(["c1"]), silent, instance("c1", "sfcatch", [["out"]]), { id: "flowcatch", type: "catch", name: "", scope: null, uncaught: false, wires: [["out-flow"]] }],
    subflows: [
      subflow("sfcatch", "catches", ["scfn"], [[{ id: "sccatch" }]]),
      inside("sfcatch", failing("scfn", "failing")),
      inside("sfcatch", { id: "sccatch", type: "catch", name: "", scope: null, uncaught: false, wires: [[]] }),
    ],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
    settleMs: 300,
  },
  {
    name: "an error not caught inside goes to the flow's catch nodes, scoped to the instance",
    nodes: [
      start(["c2"]),
      silent,
      instance("c2", "sfthrow", [[]], { name: "thrower" }),
      { id: "catchall", type: "catch", name: "", scope: null, uncaught: false, wires: [["out-all"]] },
      { id: "catchinst", type: "catch", name: "", scope: ["c2"], uncaught: false, wires: [["out-scoped"]] },
      { id: "catchother", type: "catch", name: "", scope: ["start"], uncaught: false, wires: [["out-other"]] },
    ],
    subflows: [subflow("sfthrow", "throws", ["stfn"], []), inside("sfthrow", failing("stfn", "failing"))],
    send: [{ msg: { payload: "p", topic: "t" } }],
    expect: 2,
    settleMs: 300,
  },
  {
    name: "an error of a nested subflow passes up through both instances",
    nodes: [start(["n1"]), silent, instance("n1", "sfnest1", [[]]), { id: "topcatch", type: "catch", name: "", scope: ["n1"], uncaught: false, wires: [["out"]] }],
    subflows: [
      subflow("sfnest1", "level one", ["sn1inst"], []),
      inside("sfnest1", instance("sn1inst", "sfnest2", [[]])),
      subflow("sfnest2", "level two", ["sn2fn"], []),
      inside("sfnest2", failing("sn2fn", "deep")),
    ],
    send: [{ msg: { payload: "deep" } }],
    expect: 1,
    settleMs: 300,
  },
  {
    name: "complete nodes inside a subflow see its nodes; the flow's complete node scoped to the instance does not",
    nodes: [start(["cp"]), instance("cp", "sfcomplete", [["out"]]), { id: "flowcomplete", type: "complete", name: "", scope: ["cp"], uncaught: false, wires: [["out-flow"]] }],
    subflows: [
      subflow("sfcomplete", "completes", ["scpfn"], [[{ id: "scpdone" }]]),
      inside("sfcomplete", { id: "scpfn", type: "change", name: "finishes", rules: [{ t: "set", p: "done", pt: "msg", to: "true", tot: "bool" }], wires: [[]] }),
      inside("sfcomplete", { id: "scpdone", type: "complete", name: "", scope: ["scpfn"], uncaught: false, wires: [[]] }),
    ],
    send: [{ msg: { payload: "p" } }],
    expect: 1,
    settleMs: 300,
  },
  {
    name: "flow context inside an instance is its own; $parent reaches the flow's",
    nodes: [start(["ctx1"]), instance("ctx1", "sfctx", [["out1"]])],
    subflows: [
      subflow("sfctx", "context", ["scxset"], [[{ id: "scxget" }]]),
      inside("sfctx", {
        id: "scxset",
        type: "change",
        name: "",
        rules: [
          { t: "set", p: "mine", pt: "flow", to: "payload", tot: "msg" },
          { t: "set", p: "$parent.fromsub", pt: "flow", to: "payload", tot: "msg" },
        ],
        wires: [["scxget"]],
      }),
      inside("sfctx", {
        id: "scxget",
        type: "change",
        name: "",
        rules: [
          { t: "set", p: "mine", pt: "msg", to: "mine", tot: "flow" },
          { t: "set", p: "parent", pt: "msg", to: "$parent.shared", tot: "flow" },
          { t: "set", p: "sharedHere", pt: "msg", to: "shared", tot: "flow" },
          { t: "set", p: "fromsub", pt: "msg", to: "$parent.fromsub", tot: "flow" },
        ],
        wires: [[]],
      }),
    ],
    flow: { shared: "the flow's" },
    send: [{ msg: { payload: "first" } }],
    expect: 1,
  },
  {
    name: "function code inside an instance shares the instance's flow context with the other nodes; its $parent writes reach the flow's",
    nodes: [start(["fctx"]), instance("fctx", "sffnctx", [["out"]])],
    subflows: [
      subflow("sffnctx", "function context", ["sfcset"], [[{ id: "sfcread" }]]),
      inside("sffnctx", { id: "sfcset", type: "change", name: "sets", rules: [{ t: "set", p: "own", pt: "flow", to: "payload", tot: "msg" }], wires: [["sfcfn"]] }),
      inside(
        "sffnctx",
        fn("sfcfn", "flow.set('byfn', flow.get('own') + '!'); flow.set('$parent.fromfn', 'written by the function'); msg.keys = flow.keys().sort(); return msg;", [["sfcread"]], { name: "reads" }),
      ),
      inside("sffnctx", {
        id: "sfcread",
        type: "change",
        name: "reads",
        rules: [
          { t: "set", p: "byfn", pt: "msg", to: "byfn", tot: "flow" },
          { t: "set", p: "fromfn", pt: "msg", to: "$parent.fromfn", tot: "flow" },
        ],
        wires: [[]],
      }),
    ],
    send: [{ msg: { payload: "value" } }],
    expect: 1,
  },
  {
    name: "a nested instance's status output passes up through an outer subflow without one",
    nodes: [start(["top"]), instance("top", "sfstouter", [[]], { name: "top" }), { id: "watchtop", type: "status", name: "", scope: ["top"], wires: [["out"]] }],
    subflows: [
      subflow("sfstouter", "outer without status", ["sstonested"], []),
      inside("sfstouter", instance("sstonested", "sfstinner", [[]], { name: "nested" })),
      subflow("sfstinner", "inner with status", ["sstifn"], [], { status: { x: 200, y: 100, wires: [{ id: "sstifn", port: 0 }] } }),
      inside("sfstinner", fn("sstifn", "msg.payload = { fill: 'blue', shape: 'ring', text: 'n=' + msg.payload }; return msg;", [[]], { name: "to status" })),
    ],
    send: [{ msg: { payload: 3 } }],
    expect: 1,
    compare: ["status"],
  },
  {
    name: "a catch inside scoped to another node leaves the error to the flow's 'uncaught only' catch",
    nodes: [
      start(["uc"]),
      silent,
      instance("uc", "sfuncaught", [[]]),
      { id: "flowuncaught", type: "catch", name: "", scope: null, uncaught: true, wires: [["out-uncaught"]] },
    ],
    subflows: [
      subflow("sfuncaught", "scoped catch inside", ["sufail"], []),
      inside("sfuncaught", failing("sufail", "fails")),
      // A rule of its own: a change node without rules is one our import refuses (kept as unknown).
      inside("sfuncaught", { id: "suother", type: "change", name: "other", rules: [{ t: "set", p: "other", pt: "msg", to: "true", tot: "bool" }], wires: [[]] }),
      inside("sfuncaught", { id: "sucatch", type: "catch", name: "", scope: ["suother"], uncaught: false, wires: [["suother"]] }),
    ],
    send: [{ msg: { payload: "u" } }],
    expect: 1,
    settleMs: 300,
  },
  {
    // Node-RED's editor accepts ${ENV_VAR} in a number's place (validators.number), and its runtime maps a node's whole-value
    // properties when the node starts (mapEnvVarProperties): here from the instance's env, a number and a string.
    name: "numbers written as ${NAME} inside a subflow are its env's values: a range's bounds and a trigger's duration",
    nodes: [instance("numvars", "sfnumvars", [["out"]], { env: [{ name: "HIGH", type: "str", value: "300" }] })],
    subflows: [
      subflow("sfnumvars", "numbers from env", ["snrange"], [[{ id: "sntrigger" }]], {
        env: [
          { name: "LOW", type: "num", value: "100" },
          { name: "HIGH", type: "str", value: "200" },
          { name: "WAIT", type: "num", value: "20" },
        ],
      }),
      inside("sfnumvars", { id: "snrange", type: "range", name: "", minin: "0", maxin: "10", minout: "${LOW}", maxout: "${HIGH}", action: "scale", round: false, property: "payload", wires: [["sntrigger"]] }),
      inside("sfnumvars", {
        id: "sntrigger",
        type: "trigger",
        name: "",
        op1: "",
        op2: "done",
        op1type: "pay",
        op2type: "str",
        duration: "${WAIT}",
        extend: false,
        overrideDelay: false,
        units: "ms",
        reset: "",
        bytopic: "all",
        topic: "topic",
        outputs: 1,
        wires: [[]],
      }),
    ],
    send: [{ msg: { payload: 5 } }],
    expect: 2,
  },
];
