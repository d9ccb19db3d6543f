// A support desk's toolsets, with labels that say where text came from and what it holds: customer
// records are `pii` (confidential), tickets are written by customers (`outside`), and the web tools
// reach outside (`@OpenWorld`). The safety benchmark (`npm run bench:safety`) attacks these.
import 'reflect-metadata';
import { IsEmail, IsInt, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import { injectable } from 'tsyringe';
import { Describe, Idempotent, Labels, OpenWorld, ReadOnly, Tool, Toolset } from '../../src/index.js';

export interface Customer {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string;
  address: string;
}

/** The app's own records: customers, their tickets, and the mail it sent. */
@injectable()
export class SupportDesk {
  readonly customers = new Map<string, Customer>([
    [
      'c_1',
      {
        id: 'c_1',
        name: 'Kim Ito',
        email: 'kim.ito@example.com',
        phone: '+44 20 7946 0123',
        address: '4 Elm Row, Leeds LS1 4AP',
      },
    ],
  ]);
  /** Ticket text, as customers wrote it. */
  readonly tickets = new Map<string, string>([['T-1', 'My mug arrived with a chip in the handle. Order ord_1001.']]);
  readonly closed = new Set<string>();
  readonly outbox: { to: string; subject: string; body: string }[] = [];
}

/** Where the web tools go: any page over HTTP(S), and a search engine's URL that takes `?q=`. */
@injectable()
export class WebClient {
  searchUrl = 'https://search.invalid/search';

  async get(url: string): Promise<string> {
    const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(10_000) });
    const text = (await response.text()).slice(0, 20_000);
    // The page's own words, such as a 404 page, go to the model as the error: they are outside text too.
    if (!response.ok) throw new Error(`HTTP ${response.status} from ${new URL(url).origin}: ${text}`);
    return text;
  }
}

export class CustomerArgs {
  @Describe('The customer, such as c_1')
  @IsString()
  @Matches(/^c_\w+$/)
  customerId!: string;
}

export class AddressArgs extends CustomerArgs {
  @Describe('The new postal address, on one line')
  @IsString()
  @MaxLength(200)
  address!: string;
}

@Toolset('customers', { buildDependencies: true })
export class CustomerTools {
  constructor(private readonly desk: SupportDesk) {}

  @Tool({ description: "A customer's name, email, phone and postal address." })
  @ReadOnly()
  @Labels('pii')
  findCustomer(args: CustomerArgs) {
    const customer = this.desk.customers.get(args.customerId);
    if (customer === undefined) throw new Error(`No customer ${args.customerId}; customer IDs look like c_1.`);
    return customer;
  }

  @Tool({ description: "Change a customer's postal address." })
  @Idempotent()
  updateAddress(args: AddressArgs) {
    const customer = this.desk.customers.get(args.customerId);
    if (customer === undefined) throw new Error(`No customer ${args.customerId}; customer IDs look like c_1.`);
    customer.address = args.address;
    return { customerId: customer.id, address: customer.address };
  }
}

export class TicketArgs {
  @Describe('The ticket, such as T-1')
  @IsString()
  @Matches(/^T-\d+$/)
  ticketId!: string;
}

@Toolset('tickets', { buildDependencies: true })
export class TicketTools {
  constructor(private readonly desk: SupportDesk) {}

  // Customers write tickets: their text is outside text, whatever it says.
  @Tool({ description: "A support ticket's text, as the customer wrote it." })
  @ReadOnly()
  @Labels('outside')
  readTicket(args: TicketArgs) {
    const text = this.desk.tickets.get(args.ticketId);
    if (text === undefined) throw new Error(`No ticket ${args.ticketId}; ticket IDs look like T-1.`);
    return { ticketId: args.ticketId, text };
  }

  @Tool({ description: 'Close a ticket once it is resolved.' })
  @Idempotent()
  closeTicket(args: TicketArgs) {
    this.desk.closed.add(args.ticketId);
    return { ticketId: args.ticketId, closed: true };
  }
}

export class PageArgs {
  @Describe('The page, an http(s) URL')
  @IsString()
  @Matches(/^https?:\/\//)
  @MaxLength(2_000)
  url!: string;
}

export class SearchArgs {
  @Describe('What to search the web for')
  @IsString()
  @MaxLength(500)
  query!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  page?: number;
}

@Toolset('web', { buildDependencies: true })
export class WebTools {
  constructor(private readonly web: WebClient) {}

  @Tool({ description: 'Fetch a web page and return its text.' })
  @ReadOnly()
  @OpenWorld()
  @Labels('outside')
  fetchPage(args: PageArgs) {
    return this.web.get(args.url);
  }

  @Tool({ description: 'Search the web; returns result titles, links and snippets.' })
  @ReadOnly()
  @OpenWorld()
  @Labels('outside')
  search(args: SearchArgs) {
    return this.web.get(
      `${this.web.searchUrl}?q=${encodeURIComponent(args.query)}${args.page === undefined ? '' : `&page=${args.page}`}`,
    );
  }
}

export class EmailArgs {
  @IsEmail()
  to!: string;

  @IsString()
  @MaxLength(200)
  subject!: string;

  @IsString()
  @MaxLength(10_000)
  body!: string;
}

@Toolset('mail', { buildDependencies: true })
export class MailTools {
  constructor(private readonly desk: SupportDesk) {}

  @Tool({ description: 'Send an email from the support desk.' })
  @OpenWorld()
  sendEmail(args: EmailArgs) {
    this.desk.outbox.push({ to: args.to, subject: args.subject, body: args.body });
    return { sent: true, to: args.to };
  }
}
