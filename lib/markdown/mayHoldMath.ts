/** Whether a text can hold math at all: the plugins are loaded only for texts that can. */
export function mayHoldMath(text: string): boolean {
  return text.includes('$') || text.includes('```math');
}
