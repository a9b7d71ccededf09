/**
 * A refused operator or domain action on users, memberships or clients (duplicate e-mail,
 * unknown user, bad redirect URI). Callers show `message` as is: it names no secrets.
 */
export class IdentityError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "IdentityError";
  }
}
