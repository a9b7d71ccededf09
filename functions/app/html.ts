/** The site's edge module (`site-edge.ts`) imports the shared tag through this path. */
export { type Html, html } from "#shared/html/html.ts";
