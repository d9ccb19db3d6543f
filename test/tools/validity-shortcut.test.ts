import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainToInstance, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatePromise,
  ValidatorConstraint,
  validateSync,
  type ValidationOptions,
  type ValidatorConstraintInterface,
} from 'class-validator';
import fc from 'fast-check';
import { surelyValid } from '../../src/tools/validity-shortcut.js';

/**
 * The shortcut says "surely valid" only where class-validator finds no error, with Wardrik's options,
 * and says it wherever class-validator does for the rules it follows: each DTO below is fed generated
 * arguments, mostly valid, with the values that got through some check before, and both are asked.
 */

const OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: true },
};

class Contact {
  @IsString()
  @Matches(/@/)
  email!: string;

  @IsOptional()
  @IsString()
  @MaxLength(5)
  name?: string;
}

class Refund {
  @IsString()
  @Matches(/^ord_/)
  orderId!: string;

  @IsInt()
  @Min(1)
  @Max(100)
  amountCents!: number;

  @IsDefined()
  @IsIn(['damaged', 'late'])
  reason!: string;
}

class Payment {
  @IsIn(['card', 'cash'])
  kind!: string;

  @ValidateIf((o: Payment) => o.kind === 'card')
  @IsString()
  @MinLength(4)
  card?: string;

  @IsOptional()
  @IsInt({ validateIf: (_o: unknown, v: unknown) => v !== 'none' })
  tip?: number;
}

@ValidatorConstraint({ name: 'even' })
class Even implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
}

function NotBlank(options?: ValidationOptions) {
  return (target: object, property: string): void =>
    registerDecorator({
      name: 'notBlank',
      target: target.constructor,
      propertyName: property,
      options,
      validator: { validate: (value: unknown) => typeof value === 'string' && value.trim() !== '' },
    });
}

class Shipment {
  @ValidateNested()
  @Type(() => Contact)
  to!: Contact;

  @IsOptional()
  @ValidateNested({ each: true })
  @ArrayMaxSize(2)
  @Type(() => Contact)
  copies?: Contact[];

  @IsOptional()
  @IsString({ each: true })
  @NotBlank({ each: true })
  tags?: string[];

  @Validate(Even)
  boxes!: number;

  @Allow()
  note?: unknown;
}

class Named {
  @IsString()
  name!: string;
}

class LongNamed extends Named {
  @MinLength(3)
  override name!: string;

  @IsOptional()
  @IsInt()
  rank?: number;
}

/** Values that are wrong almost anywhere, and got through some check before. */
const hostile = fc.constantFrom<unknown>(
  [],
  [[]],
  {},
  null,
  '',
  ' ',
  'x',
  0,
  -1,
  1.5,
  2,
  Infinity,
  NaN,
  true,
  [{}],
  ['a', ''],
  [{ email: 'a@b' }],
);

/** `valid` four times in five, else a hostile value. */
function mostly(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostile });
}

/** An object of these fields, any but `always` sometimes left out, and now and then an unknown key. */
function shape(
  fields: Record<string, fc.Arbitrary<unknown>>,
  always: readonly string[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  const extra = fc.oneof(
    { weight: 9, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('extra', 'toString', 'constructor'), hostile) },
  );
  return fc.tuple(fc.record(fields, { requiredKeys: [...always] }), extra).map(([value, more]) => {
    const out: Record<string, unknown> = { ...value };
    if (more !== null)
      Object.defineProperty(out, more[0], { value: more[1], enumerable: true, writable: true, configurable: true });
    return out;
  });
}

const contact = shape(
  { email: mostly(fc.constantFrom('a@b', 'c@d', 'e@f', 'ab')), name: mostly(fc.string({ maxLength: 7 })) },
  ['email'],
);

const cases: readonly { readonly dto: new () => object; readonly args: fc.Arbitrary<Record<string, unknown>> }[] = [
  {
    dto: Refund,
    args: shape({
      orderId: mostly(fc.string({ maxLength: 4 }).map((s) => `ord_${s}`)),
      amountCents: mostly(fc.integer({ min: 0, max: 101 })),
      reason: mostly(fc.constantFrom('damaged', 'late', 'lost')),
    }),
  },
  {
    dto: Payment,
    args: shape({
      kind: mostly(fc.constantFrom('card', 'cash', 'gold')),
      card: mostly(fc.string({ maxLength: 6 })),
      tip: mostly(fc.constantFrom('none', 1, 2.5)),
    }),
  },
  {
    dto: Shipment,
    args: shape(
      {
        to: mostly(contact),
        copies: mostly(fc.array(mostly(contact), { maxLength: 3 })),
        tags: mostly(fc.array(fc.constantFrom('a', ' ', 'b'), { maxLength: 3 })),
        boxes: mostly(fc.constantFrom(0, 2, 4, 3)),
        note: hostile,
      },
      ['to', 'boxes'],
    ),
  },
  {
    dto: LongNamed,
    args: shape({ name: mostly(fc.string({ maxLength: 5 })), rank: mostly(fc.integer({ min: 0, max: 3 })) }),
  },
];

const hasPrototypeKey = (value: unknown): boolean =>
  value !== null &&
  typeof value === 'object' &&
  (Object.hasOwn(value, 'toString') ||
    Object.hasOwn(value, 'constructor') ||
    Object.values(value).some(hasPrototypeKey));

describe('surelyValid', () => {
  for (const { dto, args } of cases) {
    it(`agrees with class-validator on ${dto.name} over 2,000 generated arguments or more`, () => {
      let valid = 0;
      let invalid = 0;
      // Rounds of 2,000 until both sides were reached often (a round of random arguments may fall short).
      for (let round = 0; round < 5 && (valid < 100 || invalid < 100); round++)
        fc.assert(
          fc.property(args, (raw) => {
            const instance = plainToInstance(dto, raw) as object;
            const errors = validateSync(instance, OPTIONS);
            const sure = surelyValid(instance);
            if (errors.length === 0) valid++;
            else invalid++;
            // Never looser than class-validator; as loose wherever it has no quirk to avoid (class-validator
            // takes a key named like an Object.prototype member for a known property, and drops it).
            if (sure) assert.deepEqual(errors, [], `said valid, but class-validator refuses ${JSON.stringify(raw)}`);
            else if (!hasPrototypeKey(raw))
              assert.notDeepEqual(
                errors,
                [],
                `said not sure about ${JSON.stringify(raw)}, which class-validator accepts`,
              );
          }),
          { numRuns: 2_000 },
        );
      // Means something only if both sides are reached often.
      assert.ok(valid >= 100 && invalid >= 100, `valid ${valid}, invalid ${invalid}`);
    });
  }

  it('is not sure of a class whose rules it does not follow, and class-validator decides', () => {
    @ValidatorConstraint({ name: 'later', async: true })
    class Later implements ValidatorConstraintInterface {
      validate(): Promise<boolean> {
        return Promise.resolve(false);
      }
    }
    class Eventually {
      @Validate(Later)
      code!: string;
    }
    class Promised {
      @ValidatePromise()
      @IsString()
      name!: string;
    }
    class Undecorated {
      name!: string;
    }
    class Holder {
      @ValidateNested()
      inner!: object; // no @Type: a plain object, which forbidUnknownValues refuses
    }
    assert.equal(surelyValid(plainToInstance(Eventually, { code: 'x' })), false);
    assert.equal(surelyValid(plainToInstance(Promised, { name: 'x' })), false);
    assert.equal(surelyValid(plainToInstance(Undecorated, { name: 'x' })), false);
    const holder = plainToInstance(Holder, { inner: { a: 1 } });
    assert.equal(surelyValid(holder), false);
    assert.notDeepEqual(validateSync(holder, OPTIONS), []);
  });

  it('is not sure when a synchronous constraint answers with a promise, which validateSync leaves unread', () => {
    @ValidatorConstraint({ name: 'sneaky' })
    class Sneaky implements ValidatorConstraintInterface {
      validate(): boolean {
        return Promise.resolve(false) as unknown as boolean;
      }
    }
    class Args {
      @Validate(Sneaky)
      code!: string;
    }
    assert.equal(surelyValid(plainToInstance(Args, { code: 'x' })), false);
  });

  it('is sure of valid arguments, nested ones included', () => {
    assert.equal(surelyValid(plainToInstance(Refund, { orderId: 'ord_1', amountCents: 5, reason: 'late' })), true);
    assert.equal(
      surelyValid(
        plainToInstance(Shipment, {
          to: { email: 'a@b' },
          copies: [{ email: 'c@d', name: 'Al' }],
          tags: ['a'],
          boxes: 2,
        }),
      ),
      true,
    );
  });
});
