// negotiator 1.x (jshttp): Accept-* negotiation. The package ships no types, and
// @types/negotiator describes 0.6, whose encodings() takes no options.
declare module "negotiator" {
  export default class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    /** The most preferred of `available` the request accepts (q > 0); undefined when none is. */
    encoding(available?: string[], options?: { preferred?: string[] }): string | undefined;
    encodings(available?: string[], options?: { preferred?: string[] }): string[];
  }
}
