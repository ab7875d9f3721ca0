package workspace

import (
	"github.com/ctxls/ctxls/workspace/config"
	"github.com/ctxls/ctxls/workspace/items"
	"github.com/ctxls/ctxls/workspace/pipeline"
	"github.com/ctxls/ctxls/workspace/snapshot"
)

// The names callers of the workspace know the pipeline's request and
// answer, the configuration and the context items by.
type (
	SelectRequest = pipeline.SelectRequest
	Selection     = pipeline.Selection
	Selected      = pipeline.Selected
	SelectStats   = pipeline.SelectStats
	Span          = pipeline.Span
	Signal        = pipeline.Signal
	ParamError    = pipeline.ParamError
	Cursor        = snapshot.Cursor
	HistoryStats  = snapshot.HistoryStats
	WeightsStats  = snapshot.WeightsStats
	WeightsJudge  = snapshot.WeightsJudge
	Note          = items.Note
	Config        = config.Config
	Tool          = config.Tool
	Duration      = config.Duration
)

const (
	DefaultLimit              = config.DefaultLimit
	MaxLimit                  = config.MaxLimit
	DefaultMaxChars           = config.DefaultMaxChars
	DefaultMaxCharsPerItem    = config.DefaultMaxCharsPerItem
	EmbedderHash              = config.EmbedderHash
	EmbedderONNX              = config.EmbedderONNX
	CacheDirOff               = config.CacheDirOff
	DefaultMaxFileBytes       = config.DefaultMaxFileBytes
	DefaultRecentEditHalfLife = config.DefaultRecentEditHalfLife

	ItemRule   = items.ItemRule
	ItemDoc    = items.ItemDoc
	ItemMemory = items.ItemMemory
	ItemTool   = items.ItemTool

	ReasonPinned    = pipeline.ReasonPinned
	ReasonActive    = pipeline.ReasonActive
	ReasonRetrieved = pipeline.ReasonRetrieved
	ReasonExpanded  = pipeline.ReasonExpanded
)

var (
	// ItemKinds are the context item kinds, in the order they are documented.
	ItemKinds = items.ItemKinds
	// CodeOnly turns off the items other than code (items.CodeOnly).
	CodeOnly = items.CodeOnly
	// DefaultConfig is the configuration used when nothing is set.
	DefaultConfig = config.Default
	// JSONKind names the JSON type of a raw value (config.JSONKind).
	JSONKind     = config.JSONKind
	IsItemID     = pipeline.IsItemID
	ParseItemID  = pipeline.ParseItemID
	FormatItemID = pipeline.FormatItemID
)

// Include modes of a context item, and the reasons of the items they bring.
const (
	IncludeAlways = items.IncludeAlways
	IncludeManual = items.IncludeManual
	IncludeAgent  = items.IncludeAgent
	ReasonAlways  = pipeline.ReasonAlways
	ReasonManual  = pipeline.ReasonManual
	ReasonAgent   = pipeline.ReasonAgent
)
