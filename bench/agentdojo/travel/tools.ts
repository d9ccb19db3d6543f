// AgentDojo's travel suite as Wardrik toolsets: a travel agency's listings, the user's profile and the
// bookings (the calendar and mail are in office-tools.ts). Labels as the real world has them: reviews of
// hotels, restaurants and car rentals are written by strangers (AgentDojo plants its injections there), so
// they are `outside`, and only they (`@OutsideFields`) where a tool answers with a rating beside them; the
// listings' facts (prices, addresses, hours, flights) are published by the businesses, so `public`; the user's
// profile is the user's own data (the defaults' `confidential`). A booking hands the user's phone number to a
// third party, so it is open-world.
import 'reflect-metadata';
import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';
import {
  Describe,
  Idempotent,
  Labels,
  NoArguments,
  OpenWorld,
  OutsideFields,
  ReadOnly,
  Tool,
  Toolset,
} from '../../../src/index.js';
import { pyFloat, World } from '../suite.js';

interface Listing {
  name: string;
  city: string;
  address: string;
  rating: number;
  reviews: string[];
}
/** What a rating tool answers for a listing. */
export type RatedListing = Pick<Listing, 'name' | 'rating' | 'reviews'>;
export interface Hotel extends Listing {
  price_min: number;
  price_max: number;
}
export interface Restaurant extends Listing {
  price_per_person: number;
  operating_hours: string;
  contact_information: string;
  cuisine_type: string;
  dietary_restrictions: string;
}
export interface CarCompany extends Listing {
  price_per_day: number;
  contact_information: string;
  car_types_available: string[];
  fuel_options: string[];
}
export interface Email {
  id_: string;
  sender: string;
  recipients: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  status: string;
  read: boolean;
  timestamp: string;
}
export interface CalendarEvent {
  id_: string;
  title: string;
  description: string;
  start_time: string;
  end_time: string;
  location: string | null;
  participants: string[];
  all_day: boolean;
  status: string;
}

export interface TravelEnvironment {
  user: Record<string, string>;
  inbox: { account_email: string; emails: Email[] };
  calendar: { account_email: string; current_day: string; events: CalendarEvent[] };
  reservation: {
    reservation_type: 'hotel' | 'car' | 'restaurant' | null;
    title: string;
    start_time: string;
    end_time: string;
    contact_information: string;
  };
  flights: { flight_list: Record<string, string | number>[] };
  hotels: { hotel_list: Hotel[] };
  restaurants: { restaurant_list: Restaurant[] };
  car_rental: { company_list: CarCompany[] };
}

const text = (description: string, max = 2_000) => [Describe(description), IsString(), MaxLength(max)];
const names = (description: string) => [
  Describe(description),
  IsArray(),
  ArrayMaxSize(100),
  IsString({ each: true }),
  MaxLength(500, { each: true }),
];
const apply =
  (decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((decorate) => decorate(target, key));

export class CityArgs {
  @apply(text('The city.', 200)) city!: string;
}
export class HotelNamesArgs {
  @apply(names('The names of the hotels.')) hotel_names!: string[];
}
export class HotelNameArgs {
  @apply(text('The name of the hotel.', 500)) hotel_name!: string;
}
export class RestaurantNamesArgs {
  @apply(names('The names of the restaurants.')) restaurant_names!: string[];
}
export class CompanyNamesArgs {
  @apply(names('The names of the car rental companies.')) company_name!: string[];
}
export class ReserveHotelArgs {
  @apply(text('The name of the hotel.', 500)) hotel!: string;
  @apply(text("The check-in day, 'YYYY-MM-DD'.", 40)) start_day!: string;
  @apply(text("The check-out day, 'YYYY-MM-DD'.", 40)) end_day!: string;
}
export class ReserveRestaurantArgs {
  @apply(text('The name of the restaurant.', 500)) restaurant!: string;
  @apply(text("The time, 'YYYY-MM-DD HH:MM'; the booking lasts two hours.", 40)) start_time!: string;
}
export class ReserveCarArgs {
  @apply(text('The name of the car rental company.', 500)) company!: string;
  @apply(text("The start, 'YYYY-MM-DD HH:MM'.", 40)) start_time!: string;
  @apply(text("The end, 'YYYY-MM-DD HH:MM'.", 40)) end_time!: string;
}
export class FlightArgs {
  @apply(text('The city to depart from.', 200)) departure_city!: string;
  @apply(text('The city to arrive at.', 200)) arrival_city!: string;
}
export class NewEventArgs {
  @apply(text('The title of the event.', 500)) title!: string;
  @apply(text("The start, 'YYYY-MM-DD HH:MM'.", 40)) start_time!: string;
  @apply(text("The end, 'YYYY-MM-DD HH:MM'.", 40)) end_time!: string;
  @IsOptional() @apply(text('The description of the event.', 10_000)) description?: string;
  @IsOptional() @apply(names("The participants' email addresses.")) participants?: string[];
  @IsOptional() @apply(text('The location of the event.', 500)) location?: string;
}
export class SearchEventsArgs {
  @apply(text('The text to find in a title or description.', 500)) query!: string;
  @IsOptional() @apply(text("The day, 'YYYY-MM-DD'.", 40)) date?: string;
}
export class DayArgs {
  @apply(text("The day, 'YYYY-MM-DD'.", 40)) day!: string;
}
export class EventIdArgs {
  @apply(text('The id of the event.', 40)) event_id!: string;
}
export class SendEmailArgs {
  @apply(names("The recipients' email addresses.")) recipients!: string[];
  @apply(text('The subject.', 1_000)) subject!: string;
  @apply(text('The body.', 50_000)) body!: string;
}

const named = <L extends Listing, V>(list: readonly L[], wanted: readonly string[], value: (item: L) => V) =>
  Object.fromEntries(list.filter((item) => wanted.includes(item.name)).map((item) => [item.name, value(item)]));
/** A listing's rating and reviews, each its own field: the platform's number and the strangers' texts. */
const rated = (list: readonly Listing[], wanted: readonly string[]): RatedListing[] =>
  list
    .filter((item) => wanted.includes(item.name))
    .map((item) => ({ name: item.name, rating: item.rating, reviews: [...item.reviews] }));
/** AgentDojo accepts both `YYYY-MM-DD HH:MM` and ISO; events keep ISO without seconds. */
export const iso = (time: string): string => time.replace(' ', 'T').slice(0, 16);

// Tool names are AgentDojo's (the tasks' plans refer to them).
@Toolset('travel')
export class TravelTools {
  constructor(private readonly world: World<TravelEnvironment>) {}

  private get env(): TravelEnvironment {
    return this.world.env;
  }

  @Tool({ description: "Get the user's information: name, ID, contact, passport, bank account and card numbers." })
  @ReadOnly()
  getUserInformation(_args: NoArguments) {
    this.world.record('get_user_information', {});
    const u = this.env.user;
    return {
      'First Name': u.first_name,
      'Last Name': u.last_name,
      'ID Number': u.ID_number,
      Email: u.email,
      'Phone Number': u.phone_number,
      Address: u.address,
      'Passport Number': u.passport_number,
      'Bank Account Number': u.bank_account_number,
      'Credit Card Number': u.credit_card_number,
    };
  }

  @Tool({ description: 'Get all hotels in the given city.' })
  @ReadOnly()
  @Labels('public')
  getAllHotelsInCity(args: CityArgs) {
    this.world.record('get_all_hotels_in_city', args);
    const found = this.env.hotels.hotel_list.filter((h) => h.city === args.city).map((h) => h.name);
    return `Hotel Names: ${found.join('\n')}\n`;
  }

  @Tool({ description: 'Get the price range of the given hotels.' })
  @ReadOnly()
  @Labels('public')
  getHotelsPrices(args: HotelNamesArgs) {
    this.world.record('get_hotels_prices', args);
    return named(
      this.env.hotels.hotel_list,
      args.hotel_names,
      (h) => `Price range: ${pyFloat(h.price_min)} - ${pyFloat(h.price_max)}`,
    );
  }

  @Tool({ description: 'Get the address of the given hotel.' })
  @ReadOnly()
  @Labels('public')
  getHotelsAddress(args: HotelNameArgs) {
    this.world.record('get_hotels_address', args);
    return named(this.env.hotels.hotel_list, [args.hotel_name], (h) => h.address);
  }

  // Reviews are strangers' text; the rating is the platform's own number. AgentDojo's environment keeps them
  // apart (each listing's `rating` is a number field, its `reviews` a list of texts, and every one of the
  // suite's injection vectors sits in a review: injection-vectors.json, environment.json); its tool prints
  // both into one text per listing ("Rating: 4.2\nReviews: …"). Here the answer keeps the environment's
  // structure, one record a listing, and holds only the reviews: an outsider who writes a review cannot
  // change the number beside it. (A platform whose ratings strangers can game would list `[].rating` too.)
  @Tool({ description: 'Get the rating and reviews of the given hotels.' })
  @ReadOnly()
  @Labels('outside')
  @OutsideFields('[].reviews')
  getRatingReviewsForHotels(args: HotelNamesArgs) {
    this.world.record('get_rating_reviews_for_hotels', args);
    return rated(this.env.hotels.hotel_list, args.hotel_names);
  }

  @Tool({ description: 'Get all restaurants in the given city.' })
  @ReadOnly()
  @Labels('public')
  getAllRestaurantsInCity(args: CityArgs) {
    this.world.record('get_all_restaurants_in_city', args);
    const found = this.env.restaurants.restaurant_list.filter((r) => r.city === args.city).map((r) => r.name);
    return `Restaurant in ${args.city}: ${found.join('\n')}\n`;
  }

  @Tool({ description: 'Get the cuisine type of the given restaurants.' })
  @ReadOnly()
  @Labels('public')
  getCuisineTypeForRestaurants(args: RestaurantNamesArgs) {
    this.world.record('get_cuisine_type_for_restaurants', args);
    return named(this.env.restaurants.restaurant_list, args.restaurant_names, (r) => r.cuisine_type);
  }

  @Tool({ description: 'Get the address of the given restaurants.' })
  @ReadOnly()
  @Labels('public')
  getRestaurantsAddress(args: RestaurantNamesArgs) {
    this.world.record('get_restaurants_address', args);
    return named(this.env.restaurants.restaurant_list, args.restaurant_names, (r) => r.address);
  }

  // As the hotels': the rating in clear, the reviews held.
  @Tool({ description: 'Get the rating and reviews of the given restaurants.' })
  @ReadOnly()
  @Labels('outside')
  @OutsideFields('[].reviews')
  getRatingReviewsForRestaurants(args: RestaurantNamesArgs) {
    this.world.record('get_rating_reviews_for_restaurants', args);
    return rated(this.env.restaurants.restaurant_list, args.restaurant_names);
  }

  @Tool({ description: 'Get the dietary restrictions of the given restaurants.' })
  @ReadOnly()
  @Labels('public')
  getDietaryRestrictionsForAllRestaurants(args: RestaurantNamesArgs) {
    this.world.record('get_dietary_restrictions_for_all_restaurants', args);
    // AgentDojo matches a name as a substring of the names joined with ", ".
    const joined = args.restaurant_names.join(', ');
    return Object.fromEntries(
      this.env.restaurants.restaurant_list
        .filter((r) => joined.includes(r.name))
        .map((r) => [r.name, r.dietary_restrictions]),
    );
  }

  @Tool({ description: 'Get the contact information of the given restaurants.' })
  @ReadOnly()
  @Labels('public')
  getContactInformationForRestaurants(args: RestaurantNamesArgs) {
    this.world.record('get_contact_information_for_restaurants', args);
    return named(this.env.restaurants.restaurant_list, args.restaurant_names, (r) => r.contact_information);
  }

  @Tool({ description: 'Get the price per person of the given restaurants.' })
  @ReadOnly()
  @Labels('public')
  getPriceForRestaurants(args: RestaurantNamesArgs) {
    this.world.record('get_price_for_restaurants', args);
    return named(this.env.restaurants.restaurant_list, args.restaurant_names, (r) => r.price_per_person);
  }

  @Tool({ description: 'Get the opening hours of the given restaurants.' })
  @ReadOnly()
  @Labels('public')
  checkRestaurantOpeningHours(args: RestaurantNamesArgs) {
    this.world.record('check_restaurant_opening_hours', args);
    return named(this.env.restaurants.restaurant_list, args.restaurant_names, (r) => r.operating_hours);
  }

  @Tool({ description: 'Get all car rental companies in the given city.' })
  @ReadOnly()
  @Labels('public')
  getAllCarRentalCompaniesInCity(args: CityArgs) {
    this.world.record('get_all_car_rental_companies_in_city', args);
    const found = this.env.car_rental.company_list.filter((c) => c.city === args.city).map((c) => c.name);
    return `Car Rental Companies in ${args.city}: ${found.join('\n')}\n`;
  }

  @Tool({ description: 'Get the car types each of the given car rental companies has.' })
  @ReadOnly()
  @Labels('public')
  getCarTypesAvailable(args: CompanyNamesArgs) {
    this.world.record('get_car_types_available', args);
    return named(this.env.car_rental.company_list, args.company_name, (c) => c.car_types_available);
  }

  // As the hotels': the rating in clear, the reviews held.
  @Tool({ description: 'Get the rating and reviews of the given car rental companies.' })
  @ReadOnly()
  @Labels('outside')
  @OutsideFields('[].reviews')
  getRatingReviewsForCarRental(args: CompanyNamesArgs) {
    this.world.record('get_rating_reviews_for_car_rental', args);
    return rated(this.env.car_rental.company_list, args.company_name);
  }

  @Tool({ description: 'Get the address of the given car rental companies.' })
  @ReadOnly()
  @Labels('public')
  getCarRentalAddress(args: CompanyNamesArgs) {
    this.world.record('get_car_rental_address', args);
    return named(this.env.car_rental.company_list, args.company_name, (c) => c.address);
  }

  @Tool({ description: 'Get the fuel options of the given car rental companies.' })
  @ReadOnly()
  @Labels('public')
  getCarFuelOptions(args: CompanyNamesArgs) {
    this.world.record('get_car_fuel_options', args);
    return named(this.env.car_rental.company_list, args.company_name, (c) => c.fuel_options);
  }

  @Tool({ description: 'Get the price per day of the given car rental companies.' })
  @ReadOnly()
  @Labels('public')
  getCarPricePerDay(args: CompanyNamesArgs) {
    this.world.record('get_car_price_per_day', args);
    return named(this.env.car_rental.company_list, args.company_name, (c) => c.price_per_day);
  }

  @Tool({ description: 'Get the flights from one city to another.' })
  @ReadOnly()
  @Labels('public')
  getFlightInformation(args: FlightArgs) {
    this.world.record('get_flight_information', args);
    return this.env.flights.flight_list
      .filter((f) => f.departure_city === args.departure_city && f.arrival_city === args.arrival_city)
      .map(
        (f) =>
          `Airline: ${f.airline}, Flight Number: ${f.flight_number}, Departure Time: ${f.departure_time}, Arrival Time: ${f.arrival_time}, Price: ${f.price}, Contact Information: ${f.contact_information}`,
      )
      .join('\n');
  }

  // A booking gives the user's phone number to the hotel, restaurant or car rental company.
  @Tool({ description: 'Book a hotel from a check-in day to a check-out day.' })
  @OpenWorld()
  @Idempotent()
  reserveHotel(args: ReserveHotelArgs) {
    this.world.record('reserve_hotel', args);
    this.book('hotel', args.hotel, args.start_day, args.end_day);
    return `Reservation for ${args.hotel} from ${args.start_day} to ${args.end_day} has been made successfully.`;
  }

  @Tool({ description: 'Book a table at a restaurant for two hours from the given time.' })
  @OpenWorld()
  @Idempotent()
  reserveRestaurant(args: ReserveRestaurantArgs) {
    this.world.record('reserve_restaurant', args);
    const start = new Date(`${iso(args.start_time)}:00Z`);
    const end = new Date(start.getTime() + 2 * 3_600_000).toISOString().slice(0, 19);
    this.book('restaurant', args.restaurant, args.start_time, end);
    return `Reservation for ${args.restaurant} from ${iso(args.start_time).slice(11)} to ${end.slice(11, 16)} on ${iso(args.start_time).slice(0, 10)} has been made successfully.`;
  }

  @Tool({ description: 'Book a car at a car rental company.' })
  @OpenWorld()
  @Idempotent()
  reserveCarRental(args: ReserveCarArgs) {
    this.world.record('reserve_car_rental', args);
    this.book('car', args.company, args.start_time, args.end_time);
    return `Reservation for a car at ${args.company} from ${args.start_time} to ${args.end_time} has been made successfully.`;
  }

  private book(type: 'hotel' | 'car' | 'restaurant', title: string, start: string, end: string): void {
    this.env.reservation = {
      reservation_type: type,
      title,
      start_time: start,
      end_time: end,
      contact_information: this.env.user.phone_number!,
    };
  }
}
