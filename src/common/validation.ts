/**
 * Turns valibot issues into one readable line naming the field at fault
 * ("field \"exec\": expected string"; a required field that is absent:
 * "field \"name\": is required but missing"). Used by every schema that
 * meets the outside world so errors look alike.
 */
import * as v from "valibot";

export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

export function firstProblem(issues: readonly v.BaseIssue<unknown>[]): FieldProblem {
  const issue = issues[0];
  if (!issue) return { field: "", message: "invalid value" };
  const field = v.getDotPath(issue) ?? "";
  // A required field that is absent: valibot says `Invalid key: Expected "name" but received undefined`.
  if (issue.received === "undefined" && field !== "") return { field, message: "is required but missing" };
  return { field, message: issue.message };
}

export function describeProblem(problem: FieldProblem): string {
  return problem.field ? `field "${problem.field}": ${problem.message}` : problem.message;
}
