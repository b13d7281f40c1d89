"use client";

import { useCallback, useMemo } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import type { ConfigNodeView, CreateConfigNodeInput, UpdateConfigNodeInput } from "@/shared/config-nodes";

/**
 * The organization's configuration nodes as the editor reads them (`configNodes.list`, SPEC §19):
 * one cached list per type for the pickers, one unfiltered for the Configuration tab. Every write
 * refetches them all, so a node added from one form shows in every other picker and in the tab.
 */
export function useConfigNodeList(type?: string) {
  const trpc = useTRPC();
  const query = useQuery(trpc.configNodes.list.queryOptions(type ? { type } : {}));
  return { nodes: query.data?.config_nodes ?? null, error: query.error, refetch: query.refetch };
}

export interface ConfigNodeWrites {
  create: (input: CreateConfigNodeInput) => Promise<ConfigNodeView>;
  update: (input: UpdateConfigNodeInput) => Promise<ConfigNodeView>;
  get: (id: string) => Promise<ConfigNodeView>;
  remove: (id: string) => Promise<void>;
  /** Redeploys every deployed flow that uses it; answers how many deployments were made. */
  deployUsers: (id: string) => Promise<number>;
}

export function useConfigNodeWrites(): ConfigNodeWrites {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: trpc.configNodes.pathKey() }), [queryClient, trpc]);
  return useMemo(
    () => ({
      create: async (input) => {
        const { config_node } = await client.configNodes.create.mutate(input);
        await refresh();
        return config_node;
      },
      update: async (input) => {
        const { config_node } = await client.configNodes.update.mutate(input);
        await refresh();
        return config_node;
      },
      get: async (id) => (await client.configNodes.get.query({ id })).config_node,
      remove: async (id) => {
        try {
          await client.configNodes.delete.mutate({ id });
        } finally {
          // A refused delete (in use) refetches too: the list then names the users the 409 is about.
          await refresh();
        }
      },
      deployUsers: async (id) => {
        const { deployments } = await client.configNodes.deploy.mutate({ id });
        await refresh();
        return deployments.length;
      },
    }),
    [client, refresh],
  );
}
