/** Who asked, as services see it: no request object, just the facts they record. */
export interface RequestMeta {
  ip: string;
  userAgent: string;
}
