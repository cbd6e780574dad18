package review_test

import "time"

// A report shows times in the local zone (Report.Zone nil); the tests
// expect them in UTC on any machine: one whose zone is elsewhere, and
// Windows, where Go takes the system's zone and does not read TZ (under
// Wine, UTC is named GMT).
func init() { time.Local = time.UTC }
