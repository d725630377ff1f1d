/** Prints one summary line per fuzzed property: how many inputs were tried. */
export function report(property: string, inputs: number, extra = ''): void {
  console.log(`[fuzz] ${property}: ${inputs} inputs${extra === '' ? '' : `, ${extra}`}`);
}
