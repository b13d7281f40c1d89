"use client";

import { useMemo } from "react";
import { useEditor } from "@/features/editor/editor-api";

/** The editor's nodes as the variable hints read them. */
export function useNodeRefs() {
  const api = useEditor();
  return useMemo(() => api.nodes.map((n) => ({ id: n.id, type: n.data.type, name: n.data.name, config: n.data.config })), [api.nodes]);
}
