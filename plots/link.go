package plots

import (
	"errors"
	"net/url"
	"strings"
)

// checkHref accepts only relative URLs, so that a report never sends the
// reader's browser to the network: no scheme (http:, javascript:, data:),
// no host, no protocol-relative "//host", and no backslash or control
// character that a browser could turn into one.
func checkHref(href string) error {
	if href == "" {
		return errors.New("empty href")
	}
	if strings.TrimSpace(href) != href {
		return errors.New("href has leading or trailing space")
	}
	for _, r := range href {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return errors.New("href contains a control character or backslash")
		}
	}
	if strings.HasPrefix(href, "//") {
		return errors.New("href is protocol-relative; only relative links are allowed")
	}
	u, err := url.Parse(href)
	if err != nil {
		return err
	}
	if u.Scheme != "" || u.Host != "" || u.User != nil {
		return errors.New("href is absolute; only relative links are allowed")
	}
	return nil
}
