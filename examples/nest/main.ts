import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { AppModule } from './app-module.js';

/** Starts the app on Express (the default) or Fastify, listening on 127.0.0.1. */
export async function start(
  adapter: 'express' | 'fastify',
  {
    port = 0,
    logger = ['log', 'warn', 'error'],
  }: { port?: number; logger?: LoggerService | ('log' | 'warn' | 'error')[] } = {},
): Promise<{ app: INestApplication; url: string }> {
  const app =
    adapter === 'fastify'
      ? await NestFactory.create(AppModule, new FastifyAdapter(), { logger })
      : await NestFactory.create(AppModule, { logger });
  app.enableShutdownHooks(); // SIGTERM closes the app, and Wardrik with it
  await app.listen(port, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const adapter = process.env.NEST_ADAPTER === 'fastify' ? 'fastify' : 'express';
  const { url } = await start(adapter, { port: Number(process.env.PORT ?? 0) });
  console.log(`listening at ${url}`);
}
