/**
 * What exact DECIMAL arithmetic costs per row: Nexmark q1's and q14's `0.908 * price` (BIGINT
 * times DECIMAL(4, 3), a DECIMAL(24, 3)), in one process, on the same prices, CPU-seconds of
 * - the exact product as Weir computes it today (`multiplyByConstant`: a double product while
 *   it is a safe integer, held as a bigint, so one `BigInt` allocated per row);
 * - the same scaled integer kept as a number, with the check that would fall back to a
 *   bigint (what a number form of small DECIMALs would pay);
 * - the inexact double product of the hand-written queries, for reference only.
 *
 *   npx tsx bench/sql-decimal.ts [rows] [rounds]
 */
import { cpuUsage } from 'node:process';
import { multiplyByConstant } from '../src/sql/types/decimal.js';

const rowCount = Number(process.argv[2] ?? 460_000);
const rounds = Number(process.argv[3] ?? 10);

// Bid prices as the generator spreads them: positive, up to millions of cents.
const prices = Array.from({ length: rowCount }, (_, i) => 100 + ((i * 7919) % 1_000_000));
const out = new Array<unknown>(rowCount);

function cpu(product: (price: number) => unknown): number {
  const start = cpuUsage();
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < rowCount; i++) out[i] = product(prices[i] ?? 0);
  const used = cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

const exact = (price: number) => multiplyByConstant(price, 908, 908n, 23);
const scaledNumber = (price: number) => {
  const product = price * 908;
  return Number.isSafeInteger(product) ? product : null;
};
const double = (price: number) => 0.908 * price;

for (let run = 0; run < 3; run++) {
  const ms = (s: number) => `${((s * 1000) / rounds).toFixed(1)} ms`;
  console.log(
    `per ${rowCount} rows: bigint ${ms(cpu(exact))}, scaled number ${ms(cpu(scaledNumber))}, double ${ms(cpu(double))}`,
  );
}
