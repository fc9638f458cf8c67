package zookeeper

import "strings"

// EncodeComponent encodes s as Java's URLEncoder.encode(s, "UTF-8") does,
// which is how Dubbo's ZookeeperRegistry names interface and provider
// nodes: letters, digits and ".-*_" stay, a space becomes "+", every other
// byte of the UTF-8 text becomes %XX (upper-case hex).
func EncodeComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case 'a' <= ch && ch <= 'z', 'A' <= ch && ch <= 'Z', '0' <= ch && ch <= '9',
			ch == '.', ch == '-', ch == '*', ch == '_':
			b.WriteByte(ch)
		case ch == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[ch>>4])
			b.WriteByte(hex[ch&0x0f])
		}
	}
	return b.String()
}
