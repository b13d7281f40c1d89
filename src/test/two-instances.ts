/**
 * The arrange step most cluster test files share: two instances ("a" on slot 0, "b" on slot 1)
 * started before the file's tests with an owner signed up through "a", disposed after them.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { signUp } from "./accounts";
import { TestCluster, until, type ClusterNode, type ClusterOptions } from "./cluster";

export interface TwoInstances {
  cluster: TestCluster;
  /** The owner's access token. */
  token: string;
  /** The owner's organization slug (its webhooks are /hooks/{slug}/…). */
  slug: string;
}

/** Registers the file's beforeAll/afterAll; the fields are set once beforeAll has run. */
export function twoInstances(options: ClusterOptions & { startTimeoutMs?: number }): TwoInstances {
  const { startTimeoutMs = 90_000, ...clusterOptions } = options;
  const two = {} as TwoInstances;
  beforeAll(async () => {
    two.cluster = new TestCluster(clusterOptions);
    await Promise.all([two.cluster.start("a", 0), two.cluster.start("b", 1)]);
    const user = await signUp(two.cluster.node("a").request);
    two.token = user.accessToken;
    two.slug = (await two.cluster.node("a").request("GET", "/organizations", { token: two.token })).body.organizations[0].slug;
  }, startTimeoutMs);
  afterAll(async () => {
    await two.cluster?.dispose();
  }, 60_000);
  return two;
}

/** The instance a flow runs on, once it is placed (asked through `via`). */
export function placedOn(via: ClusterNode, flowId: string, token: string): Promise<string> {
  return until(`flow ${flowId} is placed`, async () => {
    const res = await via.request("GET", `/flows/${flowId}`, { token });
    return (res.body.flow?.runtime?.instance_id as string | undefined) ?? undefined;
  });
}

/** Creates a flow through `via` and deploys it there (where a deploy places it); its id once it runs. */
export async function deployVia(two: TwoInstances, via: ClusterNode, name: string, nodes: unknown[], connections: unknown[]): Promise<string> {
  const { token } = two;
  const created = await via.request("POST", "/flows", { token, body: { name, nodes, connections } });
  expect(created.status, created.text).toBe(201);
  const id = created.body.flow.id as string;
  expect((await via.request("POST", `/flows/${id}/deploy`, { token })).body.deployment.state).toBe("running");
  return id;
}
