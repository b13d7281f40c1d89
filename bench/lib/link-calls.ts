/** The link-call chain of benchmark 4 (both engines): each message calls this many flows in turn. */
export const LINK_CALLS = 3;
