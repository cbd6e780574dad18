package vcs

import "crypto/tls"

// SetHTTPTLSConfig makes https remotes use cfg (to trust a test server)
// until the returned function restores the default.
func SetHTTPTLSConfig(cfg *tls.Config) func() {
	old := httpTLSConfig
	httpTLSConfig = cfg
	return func() { httpTLSConfig = old }
}
