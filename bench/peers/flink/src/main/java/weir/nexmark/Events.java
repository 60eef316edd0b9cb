package weir.nexmark;

/** The Nexmark records, field for field as in Weir's model.ts (times are epoch ms). */
public final class Events {
  private Events() {}

  /** Event type codes as in the reference DDL: 0 person, 1 auction, 2 bid. */
  public static final int PERSON = 0;
  public static final int AUCTION = 1;
  public static final int BID = 2;

  /** A new person. */
  public record Person(
      long id, String name, String emailAddress, String creditCard, String city, String state,
      long dateTime, String extra) {}

  /** A new auction. */
  public record Auction(
      long id, String itemName, String description, long initialBid, long reserve,
      long dateTime, long expires, long seller, long category, String extra) {}

  /** A bid. */
  public record Bid(
      long auction, long bidder, long price, String channel, String url, long dateTime,
      String extra) {}

  /** One event: exactly one of person, auction, bid is set, as {@code type} says. */
  public record Event(int type, Person person, Auction auction, Bid bid) {
    /** Event time in epoch ms. */
    public long dateTime() {
      return switch (type) {
        case PERSON -> person.dateTime();
        case AUCTION -> auction.dateTime();
        default -> bid.dateTime();
      };
    }
  }
}
