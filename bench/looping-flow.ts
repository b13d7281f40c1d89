/**
 * Issue 40: a flow whose nodes loop messages must not grow the server by 100 MB or more. Deploys,
 * through the REST door of a real application (embedded PGlite and the in-process store, executions
 * recorded as in production), flows whose messages loop with fan-out, injects once, and samples the
 * process's RSS for 12 s. Usage: `flock /tmp/heavy.lock npx tsx bench/looping-flow.ts [seconds]`.
 * Prints one line per scenario: idle RSS, peak RSS, growth (peak − idle), and the errors the
 * runaway guards reported.
 */
import { createTestApp, restClient } from "@/test/app";
import { signUp } from "@/test/accounts";

const SECONDS = Number(process.argv[2] ?? 12);
const PAYLOAD = "x".repeat(10 * 1024);

interface Scenario {
  name: string;
  nodes: unknown[];
  connections: Array<{ source: string; target: string; source_port?: number }>;
}

const SCENARIOS: Scenario[] = [
  {
    // A change node wired twice to another, which sends back: every round doubles the messages.
    name: "change fan-out loop, 10 KiB payload",
    nodes: [
      { id: "lp-in", type: "inject", config: { props: [{ p: "payload", v: PAYLOAD, v_type: "str" }] } },
      { id: "lp-a", type: "change", config: { rules: [{ t: "set", p: "topic", to: "a" }] } },
      { id: "lp-b", type: "change", config: { rules: [{ t: "set", p: "topic", to: "b" }] } },
      { id: "lp-c", type: "change", config: { rules: [{ t: "set", p: "topic", to: "c" }] } },
    ],
    connections: [
      { source: "lp-in", target: "lp-a" },
      { source: "lp-a", target: "lp-b" },
      { source: "lp-a", target: "lp-c" },
      { source: "lp-b", target: "lp-a" },
      { source: "lp-c", target: "lp-a" },
    ],
  },
  {
    // Function code that returns two new messages for each one it gets, looping to itself.
    name: "function loop returning two messages, 10 KiB payload",
    nodes: [
      { id: "lf-in", type: "inject", config: { props: [{ p: "payload", v: PAYLOAD, v_type: "str" }] } },
      { id: "lf-fn", type: "function", config: { code: "return [[{ payload: msg.payload }, { payload: msg.payload }]];" } },
    ],
    connections: [
      { source: "lf-in", target: "lf-fn" },
      { source: "lf-fn", target: "lf-fn" },
    ],
  },
];

async function main() {
  const only = process.argv[3];
  for (const scenario of SCENARIOS.filter((s, i) => only === undefined || String(i) === only)) {
    const app = await createTestApp();
    const request = restClient(app);
    const owner = await signUp(request);
    const created = await request("POST", "/flows", { token: owner.accessToken, body: { name: scenario.name, nodes: scenario.nodes, connections: scenario.connections } });
    if (created.status !== 201) throw new Error(created.text);
    const flowId = created.body.flow.id as string;
    const deployed = await request("POST", `/flows/${flowId}/deploy`, { token: owner.accessToken });
    if (deployed.body.deployment?.state !== "running") throw new Error(deployed.text);
    global.gc?.();
    await new Promise((r) => setTimeout(r, 500));
    const idle = process.memoryUsage.rss();
    let peak = idle;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
    const injected = await request("POST", `/nodes/${(scenario.nodes[0] as { id: string }).id}/inject`, { token: owner.accessToken, body: {} });
    if (injected.status !== 200) throw new Error(injected.text);
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    clearInterval(timer);
    const nodes = (await request("GET", `/flows/${flowId}/nodes`, { token: owner.accessToken })).body.nodes as Array<{ id: string; status: { text: string } | null }>;
    const reported = nodes.filter((n) => n.status?.text).map((n) => `${n.id}: ${n.status!.text}`);
    await request("PUT", `/flows/${flowId}`, { token: owner.accessToken, body: { enabled: false } });
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
    console.log(`${scenario.name}: idle ${mb(idle)}, peak ${mb(peak)}, growth ${mb(peak - idle)} in ${SECONDS} s; ${reported.join("; ") || "nothing reported"}`);
    await app.close();
  }
  process.exit(0);
}

void main();
