export * from "./passwords.ts";
export * from "./roles.ts";
export * from "./sessions.ts";
export * from "./users.ts";
export * from "./invitations.ts";
export * from "./members.ts";
