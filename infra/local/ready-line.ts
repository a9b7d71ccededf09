/**
 * The one line `npm start` prints when the stack answers: the API and site URLs and where
 * local.json is. Tests and scripts that start the stack as a child process wait for it and
 * read it with `parseReadyLine`, so the wording lives in one place.
 */
export interface ReadyInfo {
  apiBaseUrl: string;
  siteUrl: string;
  localJsonPath: string;
}

const PREFIX = "[platen] ready: ";
const PATTERN = /^\[platen\] ready: API (\S+) {2}site (\S+) {2}keys and design ids in (.+)$/;

export const formatReadyLine = (info: ReadyInfo): string =>
  `${PREFIX}API ${info.apiBaseUrl}  site ${info.siteUrl}  keys and design ids in ${info.localJsonPath}`;

/** The ready line among whatever the stack printed, once printed whole (its newline read too). */
export function parseReadyLine(output: string): ReadyInfo | undefined {
  for (const line of output.split(/\r?\n/).slice(0, -1)) {
    const m = PATTERN.exec(line);
    if (m) return { apiBaseUrl: m[1]!, siteUrl: m[2]!, localJsonPath: m[3]! };
  }
  return undefined;
}
