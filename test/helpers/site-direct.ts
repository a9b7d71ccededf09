import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import { siteRoutes } from "../../functions/site/handler.ts";
import type { Role, SiteIdentity } from "../../functions/site/identity.ts";
import { siteHandler } from "../../functions/site/site-edge.ts";

/**
 * An in-memory stand-in for the identity port (its contract), for page tests
 * before the identity module lands: users log in by a `fake_session=<userId>` cookie.
 */
export class FakeIdentity implements SiteIdentity {
  readonly users = new Map<string, string>();
  readonly roles = new Map<string, Role>();
  addUser(userId: string, email: string): this {
    this.users.set(userId, email);
    return this;
  }
  grant(workspaceId: string, userId: string, role: Role): this {
    this.roles.set(`${workspaceId}/${userId}`, role);
    return this;
  }
  cookie = (userId: string) => `fake_session=${userId}`;
  async userOf(cookieHeader: string | undefined) {
    const id = /fake_session=(\w+)/.exec(cookieHeader ?? "")?.[1];
    return id && this.users.has(id) ? id : undefined;
  }
  async roleIn(workspaceId: string, userId: string) {
    return this.roles.get(`${workspaceId}/${userId}`);
  }
  async emailOf(userId: string) {
    return this.users.get(userId);
  }
  async workspacesOf(userId: string) {
    return [...this.roles]
      .filter(([k]) => k.endsWith(`/${userId}`))
      .map(([k, role]) => ({ workspaceId: k.split("/")[0]!, role }));
  }
  async membersOf(workspaceId: string) {
    return [...this.roles]
      .filter(([k]) => k.startsWith(`${workspaceId}/`))
      .map(([k, role]) => {
        const userId = k.split("/")[1]!;
        return { userId, email: this.users.get(userId)!, role };
      });
  }
  async clientsOf() {
    return [];
  }
  loginUrl(returnTo: string) {
    return `/login?return_to=${encodeURIComponent(returnTo)}`;
  }
}

export interface DirectAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

/**
 * The site's real handler and routes with `identity` plugged in, invoked with API Gateway
 * proxy events in this process (its domain code pointed at a running stack's emulators).
 */
export function directSite(identity: SiteIdentity) {
  const handler = siteHandler(siteRoutes(identity), identity);
  return async (
    method: string,
    pathAndQuery: string,
    opts: {
      cookie?: string;
      form?: Record<string, string | string[]>;
      /** A raw body (JSON of the studio's script calls); set its content-type in `headers`. */
      body?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<DirectAnswer> => {
    const url = new URL(pathAndQuery, "http://site.test");
    const body = opts.form ? formBody(opts.form) : (opts.body ?? null);
    const event = {
      httpMethod: method,
      path: url.pathname,
      resource: "/{proxy+}",
      headers: {
        ...(opts.cookie && { Cookie: opts.cookie }),
        ...(opts.form && { "Content-Type": "application/x-www-form-urlencoded" }),
        ...opts.headers,
      },
      multiValueHeaders: {},
      queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : null,
      multiValueQueryStringParameters: null,
      pathParameters: { proxy: url.pathname.slice(1) },
      stageVariables: null,
      body,
      isBase64Encoded: false,
      requestContext: { identity: { sourceIp: "198.51.100.7" } },
    } as unknown as APIGatewayProxyEvent;
    const result = (await handler(event, {} as Context)) as APIGatewayProxyResult;
    const bytes = Buffer.from(result.body ?? "", result.isBase64Encoded ? "base64" : "utf8");
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    return { status: result.statusCode, headers, body: bytes, text: bytes.toString("utf8") };
  };
}

function formBody(form: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const value of Array.isArray(v) ? v : [v]) params.append(k, value);
  return params.toString();
}

/** The CSRF token of the first form on a page. */
export const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
