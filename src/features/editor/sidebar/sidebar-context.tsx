"use client";

import { createContext, useContext, type RefObject } from "react";
import type { Catalog } from "../model";

/** What the editor's own tabs need beyond useEditor(): the catalog, the node dialog, the find box. */
export interface SidebarShell {
  catalog: Catalog;
  /** Open a node's edit dialog. */
  editNode: (nodeId: string) => void;
  /** Open a subflow definition in the editor (an instance's "Edit subflow"). */
  openSubflow?: (subflowId: string) => void;
  findQuery: string;
  setFindQuery: (q: string) => void;
  findInputRef: RefObject<HTMLInputElement | null>;
}

export const SidebarShellContext = createContext<SidebarShell | null>(null);

export function useSidebarShell(): SidebarShell {
  const shell = useContext(SidebarShellContext);
  if (!shell) throw new Error("useSidebarShell() outside <FlowEditor>");
  return shell;
}
