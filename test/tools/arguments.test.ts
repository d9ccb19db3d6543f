import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsDateString,
  IsInt,
  IsOptional,
  IsString,
  Min,
  MinLength,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { ARGUMENT_LIMITS, callTool, defineTool, type ToolAnswer, type ToolDefinition } from '../../src/index.js';

class Address {
  @IsString()
  @MinLength(2)
  city!: string;
}

class Item {
  @IsString()
  @MinLength(3)
  sku!: string;

  @IsInt()
  @Min(1)
  quantity!: number;
}

class ShipArgs {
  @IsString()
  customer!: string;

  @ValidateNested()
  @Type(() => Address)
  address!: Address;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Item)
  items!: Item[];

  @IsOptional()
  @IsString()
  note?: string;
}

const known = new Set(['pi_1', 'pi_2']);

@ValidatorConstraint({ name: 'knownPaymentIntent', async: true })
class KnownPaymentIntent implements ValidatorConstraintInterface {
  async validate(value: unknown): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve));
    return typeof value === 'string' && known.has(value);
  }
  defaultMessage(): string {
    return '$property must be a payment intent we know';
  }
}

class LookupArgs {
  @IsString()
  @Validate(KnownPaymentIntent)
  payment_intent!: string;
}

class Charge {
  @IsString()
  @Validate(KnownPaymentIntent)
  payment_intent!: string;
}

class RefundArgs {
  @ValidateNested()
  @Type(() => Charge)
  charge!: Charge;
}

/** A tool that records whether it ran and what it received. */
function recorder(input: ToolDefinition['input'] | object) {
  const received: unknown[] = [];
  const tool = defineTool({
    name: 'ship',
    description: 'Ship an order.',
    input: input as never,
    run: (args) => (received.push(args), 'shipped'),
  });
  return { tool, received };
}

const valid = { customer: 'Ada', address: { city: 'Lyon' }, items: [{ sku: 'abc', quantity: 1 }] };

function errorOf(answer: ToolAnswer): { code: string; message: string } {
  assert.equal(answer.status, 'error', `expected an error answer, got ${JSON.stringify(answer)}`);
  return answer as { code: string; message: string };
}

describe('Argument checking', () => {
  describe('with a DTO', () => {
    it('passes the tool an instance of the DTO, nested DTOs included', async () => {
      const { tool, received } = recorder(ShipArgs);
      const answer = await callTool([tool], { name: 'ship', arguments: valid });
      assert.deepEqual(answer, { status: 'ok', output: 'shipped', labels: ['confidential'] });
      const args = received[0] as ShipArgs;
      assert.ok(args instanceof ShipArgs);
      assert.ok(args.address instanceof Address);
      assert.ok(args.items[0] instanceof Item);
    });

    it('answers with every failing field path and why, in one answer, without running the tool', async () => {
      const { tool, received } = recorder(ShipArgs);
      const answer = errorOf(
        await callTool([tool], {
          name: 'ship',
          arguments: {
            customer: 7,
            address: { city: 'L' },
            items: [
              { sku: 'abc', quantity: 1 },
              { sku: 'x', quantity: 0 },
            ],
          },
        }),
      );
      assert.equal(answer.code, 'invalid_arguments');
      assert.match(answer.message, /Invalid arguments for tool "ship"/);
      assert.match(answer.message, /- customer: customer must be a string \(got 7\)/);
      assert.match(answer.message, /- address\.city: city must be longer than or equal to 2 characters \(got "L"\)/);
      assert.match(answer.message, /- items\[1\]\.sku: sku must be longer than or equal to 3 characters \(got "x"\)/);
      assert.match(answer.message, /- items\[1\]\.quantity: quantity must not be less than 1 \(got 0\)/);
      assert.doesNotMatch(answer.message, /items\[0\]/);
      assert.equal(received.length, 0);
    });

    it('refuses unknown properties, at the top and nested, saying to remove them', async () => {
      const { tool, received } = recorder(ShipArgs);
      const answer = errorOf(
        await callTool([tool], {
          name: 'ship',
          arguments: { ...valid, coupon: 'FREE', address: { city: 'Lyon', floor: 3 } },
        }),
      );
      assert.match(answer.message, /- coupon: is not an argument of this tool; remove it/);
      assert.match(answer.message, /- address\.floor: is not an argument of this tool; remove it/);
      assert.equal(received.length, 0);
    });

    it('refuses a missing required nested object', async () => {
      const { tool, received } = recorder(ShipArgs);
      const { address: _address, ...withoutAddress } = valid;
      const answer = errorOf(await callTool([tool], { name: 'ship', arguments: withoutAddress }));
      assert.match(answer.message, /- address: .*\(it is missing\)/);
      assert.equal(received.length, 0);
    });

    it('refuses a missing nested object inside an array item, with its path', async () => {
      class Line {
        @ValidateNested()
        @Type(() => Address)
        address!: Address;
      }
      class Lines {
        @ValidateNested({ each: true })
        @IsArray()
        @Type(() => Line)
        lines!: Line[];
      }
      const tool = defineTool({ name: 'lines', description: 'd', input: Lines, run: () => 'ok' });
      const answer = errorOf(
        await callTool([tool], { name: 'lines', arguments: { lines: [{ address: { city: 'Lyon' } }, {}] } }),
      );
      assert.match(answer.message, /- lines\[1\]\.address: is required \(it is missing\)/);
    });

    it("leaves the app's own DTO class as it was: class-validator alone still accepts what it accepted before", async () => {
      const { tool } = recorder(ShipArgs);
      const { address: _address, ...withoutAddress } = valid;
      await callTool([tool], { name: 'ship', arguments: withoutAddress });
      const { plainToInstance } = await import('class-transformer');
      const { validateSync } = await import('class-validator');
      assert.deepEqual(validateSync(plainToInstance(ShipArgs, withoutAddress)), []);
    });

    it('accepts a missing optional property', async () => {
      const { tool } = recorder(ShipArgs);
      assert.equal((await callTool([tool], { name: 'ship', arguments: valid })).status, 'ok');
    });

    it('parses arguments sent as JSON text', async () => {
      const { tool, received } = recorder(ShipArgs);
      const answer = await callTool([tool], { name: 'ship', arguments: JSON.stringify(valid) });
      assert.equal(answer.status, 'ok');
      assert.equal((received[0] as ShipArgs).address.city, 'Lyon');
    });

    it('refuses arguments that are not valid JSON text', async () => {
      const { tool, received } = recorder(ShipArgs);
      const answer = errorOf(await callTool([tool], { name: 'ship', arguments: '{"customer": "Ada",' }));
      assert.equal(answer.code, 'invalid_arguments');
      assert.match(answer.message, /\(arguments\): are not valid JSON/);
      assert.equal(received.length, 0);
    });

    it('refuses arguments that are not an object', async () => {
      const { tool } = recorder(ShipArgs);
      const answer = errorOf(await callTool([tool], { name: 'ship', arguments: '[1, 2]' }));
      assert.match(answer.message, /\(arguments\): must be a JSON object of named arguments; got \[1,2\]/);
    });
  });

  describe('with keys that reach a prototype', () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      it(`refuses "${key}" and pollutes nothing`, async () => {
        const { tool, received } = recorder(ShipArgs);
        const raw = JSON.parse(`{"customer": "Ada", "${key}": {"polluted": 1}}`) as object;
        const answer = errorOf(await callTool([tool], { name: 'ship', arguments: raw }));
        assert.match(answer.message, new RegExp(`- ${key}: "${key}" is not allowed as an argument name`));
        assert.equal(received.length, 0);
        assert.equal(({} as { polluted?: number }).polluted, undefined);
        assert.equal((Object.prototype as { polluted?: number }).polluted, undefined);
      });
    }

    it('refuses "__proto__" sent nested, as JSON text, and pollutes nothing', async () => {
      const { tool, received } = recorder(ShipArgs);
      const answer = errorOf(
        await callTool([tool], {
          name: 'ship',
          arguments: '{"customer":"Ada","address":{"city":"Lyon","__proto__":{"polluted":1}},"items":[]}',
        }),
      );
      assert.match(answer.message, /- address\.__proto__: "__proto__" is not allowed/);
      assert.equal(received.length, 0);
      assert.equal(({} as { polluted?: number }).polluted, undefined);
    });
  });

  describe('with very deep or very large arguments', () => {
    it('refuses 1000 levels of nesting cleanly', async () => {
      const { tool, received } = recorder(ShipArgs);
      const deep = `${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}`;
      const answer = errorOf(await callTool([tool], { name: 'ship', arguments: deep }));
      assert.match(answer.message, new RegExp(`nested deeper than ${ARGUMENT_LIMITS.depth} levels`));
      assert.equal(received.length, 0);
    });

    it('refuses 20 000 array items cleanly', async () => {
      const { tool, received } = recorder(ShipArgs);
      const items = Array.from({ length: 20_000 }, () => ({ sku: 'abc', quantity: 1 }));
      const answer = errorOf(await callTool([tool], { name: 'ship', arguments: { ...valid, items } }));
      assert.match(answer.message, /\(arguments\): are too large/);
      assert.equal(received.length, 0);
    });

    it('refuses a 2 MB string cleanly', async () => {
      const { tool, received } = recorder(ShipArgs);
      const answer = errorOf(
        await callTool([tool], { name: 'ship', arguments: { ...valid, note: 'x'.repeat(2_000_000) } }),
      );
      assert.match(answer.message, /\(arguments\): are too large/);
      assert.equal(received.length, 0);
    });

    it('refuses a 2 MB string as the only argument of a JSON Schema tool', async () => {
      const tool = defineTool({
        name: 'echo',
        description: 'Echo text.',
        input: { type: 'object', properties: { text: { type: 'string' } } },
        run: () => 'ran',
      });
      const answer = errorOf(await callTool([tool], { name: 'echo', arguments: { text: 'x'.repeat(2_000_000) } }));
      assert.match(answer.message, /are too large/);
    });
  });

  describe('with an async class-validator constraint', () => {
    it('runs the constraint and refuses a value it rejects', async () => {
      const tool = defineTool({ name: 'lookup', description: 'Look up.', input: LookupArgs, run: () => 'found' });
      const answer = errorOf(await callTool([tool], { name: 'lookup', arguments: { payment_intent: 'pi_9' } }));
      assert.match(answer.message, /- payment_intent: payment_intent must be a payment intent we know \(got "pi_9"\)/);
    });

    it('runs the tool when the constraint accepts', async () => {
      const tool = defineTool({ name: 'lookup', description: 'Look up.', input: LookupArgs, run: () => 'found' });
      assert.equal((await callTool([tool], { name: 'lookup', arguments: { payment_intent: 'pi_1' } })).status, 'ok');
    });

    it('runs an async constraint on a nested DTO', async () => {
      let ran = false;
      const tool = defineTool({
        name: 'refund',
        description: 'Refund.',
        input: RefundArgs,
        run: () => ((ran = true), 'refunded'),
      });
      const answer = errorOf(
        await callTool([tool], { name: 'refund', arguments: { charge: { payment_intent: 'pi_9' } } }),
      );
      assert.match(answer.message, /- charge\.payment_intent: payment_intent must be a payment intent we know/);
      assert.equal(ran, false);
    });
  });

  describe('with a JSON Schema input', () => {
    const tool = defineTool({
      name: 'notify',
      description: 'Email a customer.',
      input: {
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email' },
          count: { type: 'integer', minimum: 1 },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['email', 'count'],
        additionalProperties: false,
      },
      run: (args: { email: string }) => `sent to ${args.email}`,
    });

    it('passes valid arguments through unchanged', async () => {
      assert.deepEqual(await callTool([tool], { name: 'notify', arguments: { email: 'a@example.com', count: 2 } }), {
        status: 'ok',
        output: 'sent to a@example.com',
        labels: ['confidential'],
      });
    });

    it('refuses a wrong type with the field path', async () => {
      const answer = errorOf(
        await callTool([tool], {
          name: 'notify',
          arguments: { email: 'a@example.com', count: 'two', tags: ['ok', 3] },
        }),
      );
      assert.match(answer.message, /- count: must be integer/);
      assert.match(answer.message, /- tags\[1\]: must be string/);
    });

    it('refuses a missing required property', async () => {
      const answer = errorOf(await callTool([tool], { name: 'notify', arguments: { email: 'a@example.com' } }));
      assert.match(answer.message, /- count: is required \(it is missing\)/);
    });

    it('refuses an unknown property when additionalProperties is false', async () => {
      const answer = errorOf(
        await callTool([tool], { name: 'notify', arguments: { email: 'a@example.com', count: 1, cc: 'b' } }),
      );
      assert.match(answer.message, /- cc: is not an argument of this tool; remove it/);
    });

    it('checks formats', async () => {
      const answer = errorOf(
        await callTool([tool], { name: 'notify', arguments: { email: 'not-an-email', count: 1 } }),
      );
      assert.match(answer.message, /- email: must match format "email"/);
    });
  });

  describe('where class-validator and the published schema disagreed', () => {
    class When {
      @IsDateString()
      at!: string;
    }

    const cases: [string, unknown, RegExp][] = [
      ['an empty array for a nested object', { ...valid, address: [] }, /- address: must be object/],
      ['an array holding the nested object', { ...valid, address: [{ city: 'Lyon' }] }, /- address: must be object/],
      ['an array inside a list of objects', { ...valid, items: [[]] }, /- items\[0\]: must be object/],
      ['a key named toString', { ...valid, toString: 'x' }, /- toString: is not an argument of this tool; remove it/],
      ['a key named isPrototypeOf', { ...valid, isPrototypeOf: 1 }, /- isPrototypeOf: is not an argument of this tool/],
      [
        'a nested key named hasOwnProperty',
        { ...valid, address: { city: 'Lyon', hasOwnProperty: true } },
        /- address\.hasOwnProperty: is not an argument of this tool/,
      ],
    ];
    for (const [what, args, why] of cases) {
      it(`refuses ${what}, naming the field, without running the tool`, async () => {
        const { tool, received } = recorder(ShipArgs);
        const answer = errorOf(await callTool([tool], { name: 'ship', arguments: args }));
        assert.match(answer.message, why);
        assert.equal(received.length, 0);
      });
    }

    it('refuses a date where @IsDateString publishes date-time, and takes a date-time', async () => {
      const { tool, received } = recorder(When);
      assert.equal(tool.inputSchema.properties?.at?.format, 'date-time');
      assert.match(
        errorOf(await callTool([tool], { name: 'ship', arguments: { at: '2024-05-01' } })).message,
        /- at: must match format "date-time"/,
      );
      assert.equal((await callTool([tool], { name: 'ship', arguments: { at: '2024-05-01T10:00:00Z' } })).status, 'ok');
      assert.equal(received.length, 1);
    });

    it('refuses 1e309, which JSON reads as Infinity, for a JSON Schema number', async () => {
      const { tool, received } = recorder({ type: 'object', properties: { amount: { type: 'number' } } });
      assert.match(
        errorOf(await callTool([tool], { name: 'ship', arguments: '{"amount": 1e309}' })).message,
        /- amount: must be number/,
      );
      assert.equal(received.length, 0);
    });
  });
});
