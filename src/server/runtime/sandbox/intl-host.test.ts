import { describe, expect, it } from "vitest";
import { intlCall, intlLimits } from "./intl-host";

const value = (answer: string) => {
  expect(answer[0], answer).toBe("=");
  return answer.slice(1);
};

describe("intl-host: the sandbox's locale calls answered by V8", () => {
  it("formats dates as Date.prototype.toLocale*String does, for every kind and options", () => {
    const t = Date.UTC(2024, 0, 15, 13, 5, 9);
    const d = new Date(t);
    const variants: Array<[string, Intl.DateTimeFormatOptions | undefined]> = [
      ["en-US", { timeZone: "UTC" }],
      ["de-DE", { timeZone: "Europe/Berlin", hour: "2-digit" }],
      ["en-GB", { timeZone: "UTC", weekday: "long" }],
      ["fr-FR", { timeZone: "UTC", dayPeriod: "short" }],
      ["ja-JP", { timeZone: "Asia/Tokyo", dateStyle: "medium" }],
      ["en-US", undefined],
    ];
    for (const [locales, options] of variants) {
      const args = JSON.stringify(options === undefined ? [locales] : [locales, options]);
      const expected = [d.toLocaleString(locales, options)];
      const got = [value(intlCall("date", "", args, String(t)))];
      // A date-only or time-only call with the other style is V8's TypeError.
      if (options?.dateStyle === undefined) {
        expected.push(d.toLocaleTimeString(locales, options));
        got.push(value(intlCall("date", "Time", args, String(t))));
      }
      expected.push(d.toLocaleDateString(locales, options));
      got.push(value(intlCall("date", "Date", args, String(t))));
      expect(got, args).toEqual(expected);
    }
    expect(value(intlCall("date", "", "", "NaN"))).toBe("Invalid Date");
    expect(intlCall("date", "Time", JSON.stringify(["en", { dateStyle: "short" }]), String(t))).toMatch(/^!\["TypeError",/);
  });

  it("passes errors back by name, and refuses what is not Intl's", () => {
    expect(JSON.parse(intlCall("date", "", JSON.stringify(["en", { timeZone: "Mars/Base" }]), "0").slice(1))).toEqual(["RangeError", "Invalid time zone specified: Mars/Base"]);
    expect(intlCall("new", "Object", "")).toBe('!["TypeError","Intl.Object is not a constructor"]');
    expect(intlCall("new", "constructor", "")).toMatch(/^!/);
    expect(intlCall("call", "Collator", "", JSON.stringify(["constructor"]))).toBe('!["TypeError","Intl.Collator.prototype.constructor is not a function"]');
    expect(intlCall("static", "", JSON.stringify(["constructor"]))).toMatch(/^!\["TypeError"/);
    expect(intlCall("nope", "")).toMatch(/^!\["TypeError","unknown Intl call nope"\]$/);
  });

  it("carries what JSON cannot: BigInts, NaN, the infinities and -0", () => {
    const call = (arg: unknown) => JSON.parse(value(intlCall("call", "NumberFormat", '["en-US"]', JSON.stringify(["format", arg]))));
    expect(call({ "\u0000bigint": "123456789012345678901234567890" })).toBe("123,456,789,012,345,678,901,234,567,890");
    expect([call({ "\u0000num": "NaN" }), call({ "\u0000num": "-Infinity" }), call({ "\u0000num": "-0" })]).toEqual(["NaN", "-∞", "-0"]);
    expect(value(intlCall("number", '["en-US"]', "n-0"))).toBe("-0");
    expect(value(intlCall("number", '["en-US"]', "b12"))).toBe("12");
  });

  it("gives the sandbox ASCII weights only where they decide the collator's order (none where the locale contracts letters)", () => {
    const hasTable = (args: string) => value(intlCall("ascii", args)) !== "";
    expect(["", '["en"]', '["de"]', '["fr"]', '["tr"]', '["en",{"caseFirst":"upper"}]'].filter((a) => !hasTable(a))).toEqual([]);
    // Czech "ch", Danish "aa", Welsh "ll", Hungarian "cs"; numeric order; punctuation ignored.
    expect(['["cs"]', '["da"]', '["cy"]', '["hu"]', '["en",{"numeric":true}]', '["en",{"ignorePunctuation":true}]'].filter(hasTable)).toEqual([]);
  });

  it("answers the same with long options it does not keep", () => {
    const long = JSON.stringify(["en-US", { timeZone: "UTC", ignored: "x".repeat(5_000) }]);
    expect(value(intlCall("date", "", long, "0"))).toBe(new Date(0).toLocaleString("en-US", { timeZone: "UTC" }));
    expect(value(intlCall("compare", long, "a", "B"))).toBe("-1");
  });

  it("sorts strings' indices stably by a collator, refuses what is not strings, and gives up past its time budget", () => {
    const items = ["b", "A", "a", "\u00e4", "B", "a"];
    const args = JSON.stringify(["de", { sensitivity: "base" }]);
    const order = JSON.parse(value(intlCall("sort", args, JSON.stringify(items)))) as number[];
    const collator = new Intl.Collator("de", { sensitivity: "base" });
    expect(order.map((i) => items[i])).toEqual(items.slice().sort(collator.compare));
    // Equal under the collator: in their order ("A", "a", "ä", "a"; then "b", "B").
    expect(order).toEqual([1, 2, 3, 5, 0, 4]);
    expect(intlCall("sort", args, JSON.stringify(["a", 1]))[0]).toBe("!");
    expect(intlCall("sort", args, JSON.stringify(Array.from({ length: 10_001 }, () => "a")))[0]).toBe("!");
    const budget = intlLimits.sortBudgetMs;
    intlLimits.sortBudgetMs = -1;
    try {
      const many = Array.from({ length: 2_000 }, (_, i) => String((i * 7919) % 2_000));
      expect(value(intlCall("sort", args, JSON.stringify(many)))).toBe("null");
    } finally {
      intlLimits.sortBudgetMs = budget;
    }
  });
});
