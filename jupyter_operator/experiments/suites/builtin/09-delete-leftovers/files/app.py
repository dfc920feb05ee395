"""Print today's date in ISO format."""

import datetime

print(datetime.date.today().isoformat())
