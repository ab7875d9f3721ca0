package symbolindex

import "github.com/ctxls/ctxls/symbolindex/tokenize"

// TokenizeDoc tokenizes a document's fields into the form AddTerms takes,
// exactly as Add would. It does not touch any index, so indexing workers can
// tokenize in parallel and leave only the cheap insertion to the writer.
func TokenizeDoc(fields [NumFields]string) DocTerms {
	var (
		tok   tokenize.Scratch
		dt    DocTerms
		at    = make(map[string]int, 64)
		field Field
		count int
	)
	emit := func(b []byte) bool {
		if field == FieldBody && count >= lexMaxBodyTerms {
			return false
		}
		count++
		i, ok := at[string(b)]
		if !ok {
			i = len(dt.Terms)
			t := string(b)
			at[t] = i
			dt.Terms = append(dt.Terms, t)
			dt.TFs = append(dt.TFs, 0)
		}
		shift := 8 * uint32(field)
		if dt.TFs[i]>>shift&0xff < 255 {
			dt.TFs[i] += 1 << shift
		}
		return true
	}
	for f := range NumFields {
		field, count = f, 0
		tok.Run(fields[f], tokenize.ModeDoc, emit)
		dt.Lens[f] = lexSat16(count)
	}
	return dt
}

// DefaultFileParams are the BM25 parameters of the whole-file index: a file
// is its path and its content, and the path counts double, as the seeds'
// path boost does.
func DefaultFileParams() LexicalParams {
	p := DefaultSymbolParams()
	p.Weight[FieldPath], p.B[FieldPath] = 2, 0.5
	p.Weight[FieldBody], p.B[FieldBody] = 1, 0.75
	return p
}
