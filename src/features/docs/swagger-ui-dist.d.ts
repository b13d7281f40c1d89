// swagger-ui-dist ships no types; the part of its bundle the API explorer uses.
declare module "swagger-ui-dist/swagger-ui-es-bundle.js" {
  const SwaggerUIBundle: (options: Record<string, unknown> & { domNode: HTMLElement; url: string }) => unknown;
  export default SwaggerUIBundle;
}
