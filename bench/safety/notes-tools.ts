// The adaptive attacks' laundering target: an app's own read-only tool that says nothing about its labels
// and repeats whatever it is given. An injection that routes its instruction through it hopes the
// instruction comes back as the app's own (clean) text.
import 'reflect-metadata';
import { IsString, MaxLength } from 'class-validator';
import { Describe, ReadOnly, Tool, Toolset } from '../../src/index.js';

export class EchoArgs {
  @Describe('The text to tidy up')
  @IsString()
  @MaxLength(10_000)
  text!: string;
}

@Toolset('notes')
export class NotesTools {
  @Tool({ description: 'Tidy up a note: returns the text with its spaces normalised.' })
  @ReadOnly()
  tidy(args: EchoArgs) {
    return { text: args.text.replace(/\s+/g, ' ').trim() };
  }
}
