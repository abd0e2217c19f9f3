/**
 * Decimal places of a number as JSON wrote it: its shortest round-trip form is what the client sent
 * (less trailing zeros), so this is read from that text, never from float arithmetic.
 */
export function decimalPlaces(value: number): number {
  const [mantissa = '', exponent = '0'] = String(Math.abs(value)).split('e');
  const fraction = mantissa.split('.')[1] ?? '';
  return Math.max(0, fraction.length - Number(exponent));
}
