// docs/tools.md, "Arguments": a DTO with nested objects, arrays, enums and formats, and the schema a model sees.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsEmail, IsEnum, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { defineTool, Describe } from '../../src/index.js';

enum Speed {
  Standard = 'standard',
  Express = 'express',
}

class Address {
  @Describe('Street and number, such as "12 Rue de la Paix"')
  @IsString()
  street!: string;

  @IsString()
  city!: string;
}

class Line {
  @Describe('Stock keeping unit, such as SKU-123')
  @IsString()
  sku!: string;

  @IsInt()
  @Min(1)
  @Max(99)
  quantity!: number;
}

export class ShipArgs {
  @IsEmail()
  customer!: string;

  @ValidateNested()
  @Type(() => Address)
  address!: Address; // required: nested objects are, unless @IsOptional

  @ValidateNested({ each: true })
  @Type(() => Line)
  @ArrayMinSize(1)
  lines!: Line[];

  @IsOptional()
  @IsEnum(Speed)
  speed?: Speed;
}

const ship = defineTool({
  name: 'ship',
  description: 'Ship an order.',
  input: ShipArgs,
  run: (args: ShipArgs) => `shipping ${args.lines.length} lines`,
});
console.log(JSON.stringify(ship.inputSchema, null, 2));
