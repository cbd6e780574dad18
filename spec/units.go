package spec

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written in YAML as Go duration text ("10m").
type Duration time.Duration

// MarshalYAML writes the duration as text so config files stay readable.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// UnmarshalYAML accepts duration text ("90s", "10m", "1h30m").
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: want a duration such as 10m or 90s, got %q", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// ByteSize is a size in bytes, written in YAML as an integer or with a unit
// (KiB, MiB, GiB, KB, MB, GB, B).
type ByteSize int64

// MarshalYAML writes whole MiB/KiB with their unit, else plain bytes.
func (s ByteSize) MarshalYAML() (any, error) { return s.String(), nil }

func (s ByteSize) String() string {
	switch {
	case s != 0 && s%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", s>>30)
	case s != 0 && s%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", s>>20)
	case s != 0 && s%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", s>>10)
	}
	return strconv.FormatInt(int64(s), 10)
}

// UnmarshalYAML parses "10MiB", "512KB", "1048576".
func (s *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseByteSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*s = v
	return nil
}

// ParseByteSize parses a size with an optional unit.
func ParseByteSize(text string) (ByteSize, error) {
	t := strings.TrimSpace(text)
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("want a size such as 10MiB or 1048576, got %q", text)
	}
	return ByteSize(v * mult), nil
}
