// The cost of a checked tool call: callTool (parse, limits, class-transformer, class-validator, the
// call, the answer) against the same class-transformer + class-validator work done by hand, and
// against the bare function. Target: callTool within 1.5x of the hand-written check.
import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import {
  IsEmail,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  validateSync,
} from 'class-validator';
import { callTool, defineTool, type ToolContext } from '../src/index.js';
import { format, measureInTurns, report } from './lib.js';

class Address {
  @IsString()
  @MaxLength(100)
  street!: string;

  @IsString()
  city!: string;
}

class CreateOrderArgs {
  @IsEmail()
  email!: string;

  @IsString()
  @MaxLength(40)
  sku!: string;

  @IsInt()
  @Min(1)
  @Max(100)
  quantity!: number;

  @IsOptional()
  @IsString()
  note?: string;

  @ValidateNested()
  @Type(() => Address)
  address!: Address;
}

// The same options as src/tools/arguments.ts.
const options = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: true },
};

const work = (args: CreateOrderArgs): { ok: boolean; total: number } => ({ ok: true, total: args.quantity * 1250 });
const tool = defineTool({ name: 'create_order', description: 'Create an order.', input: CreateOrderArgs, run: work });
const raw = {
  email: 'ada@example.com',
  sku: 'MUG-BLUE',
  quantity: 2,
  note: 'gift wrap',
  address: { street: '1 Rue de la Paix', city: 'Paris' },
};
const call = { id: 'c1', name: 'create_order', arguments: raw };
const ctx: Partial<ToolContext> = { agent: 'bench', run: 'run-1', call: 'c1' };

// Same answer from all three, before timing anything.
const check = await callTool([tool], call, ctx);
if (check.status !== 'ok') throw new Error(`callTool failed: ${JSON.stringify(check)}`);
if (validateSync(plainToInstance(CreateOrderArgs, raw), options).length !== 0)
  throw new Error('the hand-written check failed');

const instance = plainToInstance(CreateOrderArgs, raw);
const [bare, manual, tooled] = await measureInTurns([
  { name: '(a) raw function call', op: () => work(instance) },
  {
    name: '(b) plainToInstance + validateSync, then the call',
    op: () => {
      const args = plainToInstance(CreateOrderArgs, raw);
      if (validateSync(args, options).length > 0) throw new Error('invalid');
      return work(args);
    },
  },
  { name: '(c) callTool([tool], call, ctx), validated', op: () => callTool([tool], call, ctx) },
]);

report('Checked tool call, CreateOrderArgs (5 fields, one nested)', manual!, [{ timing: tooled!, target: 1.5 }]);
console.log(`  ${bare!.name.padEnd(52)} ${format(bare!.ns).padStart(10)}   (for scale)`);
console.log(`  ratio (c)/(b): ${(tooled!.ns / manual!.ns).toFixed(2)}`);
