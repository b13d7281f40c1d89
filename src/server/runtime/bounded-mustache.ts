import Mustache from "mustache";

/**
 * Mustache rendering bounded by output size and time, for templates that render messages (the
 * template node, http-request's URL). Mustache renders synchronously on the event loop, and nested
 * sections multiply: `{{#a}}{{#a}}{{#a}}…{{/a}}{{/a}}{{/a}}` over 60 items renders its body 60^depth
 * times (issue 40: a template like that stalled /health 2.1 s), with or without any output. So every
 * piece of output is counted before it is added (text, values), every section round is a step, and
 * the clock is read every CLOCK_EVERY steps: past `maxChars` characters or `maxMs` the rendering
 * stops with a TemplateLimitError, and nothing is sent.
 */

export interface TemplateLimits {
  maxChars: number;
  maxMs: number;
}

/** 16 MiB of text and 250 ms: far above what a template renders for a page, a mail or a URL. */
export const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = { maxChars: 16 * 1024 * 1024, maxMs: 250 };

const CLOCK_EVERY = 256;

export class TemplateLimitError extends Error {
  override name = "TemplateLimitError";
}

type Tokens = string[][];
type Token = string[];

/** Mustache's Writer, counting what it writes and the rounds it makes (its hooks are its own prototype methods). */
class BoundedWriter extends Mustache.Writer {
  private chars = 0;
  private steps = 0;
  private readonly deadline: number;

  constructor(private readonly limits: TemplateLimits) {
    super();
    this.deadline = performance.now() + limits.maxMs;
  }

  private count(text: string | undefined): string | undefined {
    if (text !== undefined) {
      this.chars += text.length;
      if (this.chars > this.limits.maxChars) throw new TemplateLimitError(`the template's output is larger than ${this.limits.maxChars} characters`);
    }
    this.step();
    return text;
  }

  private step(): void {
    if (++this.steps % CLOCK_EVERY === 0 && performance.now() > this.deadline) {
      throw new TemplateLimitError(`the template took longer than ${this.limits.maxMs} ms to render`);
    }
  }

  override renderTokens(tokens: Tokens, context: Mustache.Context, partials?: Mustache.PartialsOrLookupFn, originalTemplate?: string, config?: Mustache.RenderOptions): string {
    this.step();
    return super.renderTokens(tokens, context, partials, originalTemplate, config);
  }

  override rawValue(token: Token): string {
    return this.count(super.rawValue(token) as string) as string;
  }

  override escapedValue(token: Token, context: Mustache.Context, config?: Mustache.RenderOptions): string {
    return this.count(super.escapedValue(token, context, config) as string) as string;
  }

  override unescapedValue(token: Token, context: Mustache.Context): string {
    return this.count(super.unescapedValue(token, context) as string) as string;
  }
}

/** Mustache.render(template, view), or a TemplateLimitError past the limits. `view` may be a Context. */
export function renderBounded(template: string, view: unknown, options: { escape?: (value: unknown) => string; limits?: TemplateLimits } = {}): string {
  const writer = new BoundedWriter(options.limits ?? DEFAULT_TEMPLATE_LIMITS);
  return writer.render(template, view as object, undefined, options.escape ? { escape: options.escape } : undefined);
}
