"use client";

import { createContext, useContext } from "react";

/**
 * The group boxes' shared state (SPEC §16): which groups are selected, and opening a group's
 * dialog. Provided by the editor; the canvas layer (canvas/group-boxes.tsx) and the group commands
 * read it. A group stays selected while all its nodes are (clicking a node elsewhere ends it).
 */
export interface GroupUi {
  selected: ReadonlySet<string>;
  /** Select the group (with its nodes); `additive` keeps the current selection. */
  select: (groupId: string, additive: boolean) => void;
  edit: (groupId: string) => void;
}

export const GroupUiContext = createContext<GroupUi>({ selected: new Set(), select: () => {}, edit: () => {} });
export const useGroupUi = () => useContext(GroupUiContext);
