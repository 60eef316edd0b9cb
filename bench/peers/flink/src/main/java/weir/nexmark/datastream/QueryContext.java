package weir.nexmark.datastream;

/** What a query may need besides the events: q13's side input file. */
public record QueryContext(String sideInput) {}
