package consumer

import (
	"testing"

	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

// A Go provider's List<Book> decodes as []*api.Book, a Java provider's
// java.util.List as []any; both must reach the application as books.
func TestAsBooksAcceptsGoAndJavaLists(t *testing.T) {
	b1, b2 := &api.Book{Name: "Go", Author: "served-by-20880"}, api.Book{Name: "Java", Author: "served-by-20881"}
	for name, reply := range map[string]any{
		"go typed list": []*api.Book{b1, &b2},
		"java list":     []any{b1, b2},
	} {
		got, err := asBooks(reply)
		if err != nil || len(got) != 2 || got[0].Author != "served-by-20880" || got[1].Name != "Java" {
			t.Errorf("%s: %v, %v", name, got, err)
		}
	}
	if got, err := asBooks(nil); err != nil || got != nil {
		t.Errorf("nil reply: %v, %v", got, err)
	}
	if _, err := asBooks([]any{"not a book"}); err == nil {
		t.Error("a list of strings accepted as books")
	}
	if _, err := asBooks(map[string]any{}); err == nil {
		t.Error("a map accepted as a list of books")
	}
}
