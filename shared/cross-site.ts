/**
 * Whether a browser sent this request from another site: forms of the site and the auth
 * screens refuse such POSTs before any handler runs. Browsers say where a request comes
 * from in `Sec-Fetch-Site`; older ones only in `Origin` (which is `null` under a
 * `no-referrer` policy, so it decides only when it names a host). Clients that send neither
 * (curl driving a form) are not browsers acting for someone else; CSRF tokens and SameSite
 * cookies remain.
 */
export function sentFromAnotherSite(header: (name: string) => string | undefined): boolean {
  const fetchSite = header("sec-fetch-site");
  if (fetchSite !== undefined) return fetchSite !== "same-origin" && fetchSite !== "none";
  const origin = header("origin");
  if (origin === undefined || origin === "null") return false;
  try {
    return new URL(origin).host !== header("host");
  } catch {
    return true;
  }
}
