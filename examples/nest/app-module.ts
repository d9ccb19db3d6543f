import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { WardrikModule } from '../../src/nest/index.js';
import { AuthGuard } from './auth.js';
import { AppConfig, ConfigModule, OrdersModule } from './orders.js';

@Module({
  imports: [
    OrdersModule,
    WardrikModule.forRootAsync({
      imports: [ConfigModule],
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        store: config.store,
        mcpServer: { tools: ['orders/*'], approvals: { waitMs: 0 } },
      }),
      routes: { mcp: { path: 'mcp', guards: [AuthGuard] }, inbox: { path: 'inbox', guards: [AuthGuard] } },
    }),
  ],
})
export class AppModule {}
