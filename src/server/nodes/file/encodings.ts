import { lazyRequire } from "../../lazy-require";

/** iconv-lite, loaded by the first file node that uses an encoding other than "none". */
const iconv = lazyRequire<typeof import("iconv-lite")>("iconv-lite");

/**
 * The encodings Node-RED's file nodes offer (10-file.html's list, Node-RED 4.1 and 5.0), encoded and
 * decoded with iconv-lite as Node-RED does; "none" is Node-RED's default (UTF-8 without iconv).
 */
export const FILE_ENCODINGS = [
  "utf8", "ucs2", "utf-16le", "ascii", "binary", "base64", "hex",
  "utf-16be",
  "Shift_JIS", "Windows-31j", "Windows932", "EUC-JP",
  "GB2312", "GBK", "GB18030", "Windows936", "EUC-CN",
  "KS_C_5601", "Windows949", "EUC-KR",
  "Big5", "Big5-HKSCS", "Windows950",
  "cp874", "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258",
  "ISO-8859-1", "ISO-8859-2", "ISO-8859-3", "ISO-8859-4", "ISO-8859-5", "ISO-8859-6", "ISO-8859-7", "ISO-8859-8", "ISO-8859-9",
  "ISO-8859-10", "ISO-8859-11", "ISO-8859-12", "ISO-8859-13", "ISO-8859-14", "ISO-8859-15", "ISO-8859-16",
  "cp437", "cp737", "cp775", "cp808", "cp850", "cp852", "cp855", "cp856", "cp857", "cp858", "cp860", "cp861", "cp866", "cp869",
  "cp922", "cp1046", "cp1124", "cp1125", "cp1129", "cp1133", "cp1161", "cp1162", "cp1163",
  "maccroatian", "maccyrillic", "macgreek", "maciceland", "macroman", "macromania", "macthai", "macturkish", "macukraine", "maccenteuro", "macintosh",
  "koi8-r", "koi8-u", "koi8-ru", "koi8-t",
  "armscii8", "rk1048", "tcvn", "georgianacademy", "georgianps", "pt154", "viscii", "iso646cn", "iso646jp", "hproman8", "tis620",
] as const;

/** Node-RED's `encode(data, enc)`: iconv-lite unless "none". An encoding iconv-lite lacks throws its error. */
export function encodeText(data: string, encoding: string): Buffer {
  return encoding === "none" ? Buffer.from(data) : iconv().encode(data, encoding);
}

/** Node-RED's `decode(data, enc)`. */
export function decodeText(data: Buffer, encoding: string): string {
  return encoding === "none" ? data.toString() : iconv().decode(data, encoding);
}
