declare module "cookie" {
  /** cookie 0.7 (Node-RED's http request parses and writes cookies with it). */
  export function parse(text: string, options?: { decode?: (value: string) => string }): Record<string, string>;
  export function serialize(name: string, value: string, options?: { encode?: (value: string) => string }): string;
}
