/** Vite's `?raw` imports: a file's text, so a workerd test can read a repository file (no node:fs there). */
declare module "*?raw" {
  const text: string;
  export default text;
}
