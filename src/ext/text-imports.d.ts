// Files embedded as text (`import x from "./f.py" with { type: "text" }`), see scaffold-python-sdk.ts.
declare module "*.py" {
  const text: string;
  export default text;
}
declare module "*.typed" {
  const text: string;
  export default text;
}
declare module "*.md" {
  const text: string;
  export default text;
}
