import 'reflect-metadata';
import { container as root, type DependencyContainer } from 'tsyringe';
import { Tokens } from '../src/index.js';
import type { ManualTime } from '../src/testing/index.js';

/** A container whose Wardrik reads the time and sets every timer on `time`: it moves only when the test advances it. */
export function manualTimeContainer(time: ManualTime): DependencyContainer {
  const container = root.createChildContainer();
  container.register(Tokens.Clock, { useValue: time });
  container.register(Tokens.Timers, { useValue: time });
  return container;
}
