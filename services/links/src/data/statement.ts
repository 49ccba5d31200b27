/** A statement and its parameters, for a repository that wraps it (in a CTE with a write of its own, say). */
export interface Statement {
  text: string;
  params: unknown[];
}
