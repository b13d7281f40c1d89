"use client";

import { useCallback, useEffect, useRef } from "react";

/**
 * Keeps the keyboard user's place in an editable list whose rows are keyed by position (a node's
 * rules, env properties): after a change the focused button would stay where it was and name
 * another item, or vanish with a removed row and drop the focus onto the page. The list marks its
 * rows `data-list-item={i}` and its buttons `data-list-action`; a button's handler calls
 * `focusNext` with where the focus goes (`listItemAction`, `LIST_ADD`, `listItemFirstField`)
 * before it changes the list, and the element is focused after the render that shows the change
 * (the value often comes back through the caller's onChange, so that can be a later render).
 */
export function useListFocus<T extends HTMLElement>() {
  const root = useRef<T>(null);
  const pending = useRef<string | null>(null);
  useEffect(() => {
    const target = pending.current ? root.current?.querySelector<HTMLElement>(pending.current) : null;
    if (!target) return; // an added row shows on a later render
    pending.current = null;
    target.focus();
  });
  const focusNext = useCallback((selector: string) => {
    pending.current = selector;
  }, []);
  return [root, focusNext] as const;
}

export type FocusNext = (selector: string) => void;

/** Row i's button with `data-list-action={action}`. */
export const listItemAction = (i: number, action: string) => `[data-list-item="${i}"] [data-list-action="${action}"]`;
/** The list's Add button. */
export const LIST_ADD = '[data-list-action="add"]';
/** Row i's first field (a new row's). */
export const listItemFirstField = (i: number) => `[data-list-item="${i}"] :is(input, select, textarea, button)`;

/** Where Remove of row i sends the focus: the row that takes its place, else the one before, else Add. */
export const afterRemove = (i: number, rowsLeft: number) => (rowsLeft === 0 ? LIST_ADD : listItemAction(Math.min(i, rowsLeft - 1), "remove"));
