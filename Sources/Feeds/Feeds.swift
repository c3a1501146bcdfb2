// Feeds: parsing, dates, HTML to text, OPML and fetching.
