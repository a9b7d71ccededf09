import { config } from "#shared/aws/config.ts";
import { buildOpenApiDocument, type DocumentedRoute } from "./document.ts";

let document: Record<string, unknown> | undefined;

/**
 * The document `GET /v1/openapi.json` answers, built once per container from the route
 * table (the caller passes it: shared/ does not import infra/) and this deployment's URLs.
 * The site's API reference (`/docs/api`) renders the same object in-process, so the page and
 * the served document cannot differ.
 */
export function servedOpenApiDocument(routes: DocumentedRoute[]): Record<string, unknown> {
  document ??= buildOpenApiDocument(routes, {
    baseUrl: config().baseUrl,
    authUrl: config().authUrl,
    siteUrl: config().siteUrl,
  });
  return document;
}
