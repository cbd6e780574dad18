//go:build race

package main

// raceEnabled: the test binary was built with -race, so the product the
// scripts run is too.
const raceEnabled = true
