'use strict'

const eos = require('node:stream').finished
const { kReplyHeaders, kReplySerializer } = require('./symbols.js')

const CONTENT_TYPE = {
  JSON: 'application/json; charset=utf-8',
  PLAIN: 'text/plain; charset=utf-8'
}

// Reply wraps the raw response of one request.
function Reply (res, request, log) {
  this.raw = res
  this.request = request
  this.log = log
  this[kReplyHeaders] = {}
}

// Object.defineProperty on the prototype is not a method.
Object.defineProperty(Reply.prototype, 'sent', {
  get () { return this.raw.writableEnded }
})

/**
 * Sends a redirect to url, with code (302 unless given).
 */
Reply.prototype.redirect = function (url, code) {
  if (!code) {
    code = 302
  }
  return this.header('location', url).code(code).send()
}

Reply.prototype.header = function (key, value = '') {
  this[kReplyHeaders][key.toLowerCase()] = value
  return this
}

Reply.prototype.then = async function (fulfilled, rejected) {
  eos(this.raw, (err) => (err ? rejected(err) : fulfilled()))
}

Reply.prototype.status = Reply.prototype.code

// serialize turns a payload into the response body.
function serialize (context, data, statusCode) {
  return JSON.stringify(data)
}

// buildReply makes a Reply subclass for one server.
module.exports.buildReply = function (R) {
  function _Reply (res, request, log) {
    this.raw = res
  }
  _Reply.prototype = new R()
  _Reply.prototype.local = function () {}
  return _Reply
}

exports.isReply = (value) => value instanceof Reply

module.exports = {
  Reply,
  // onSend runs the onSend hooks.
  onSend (reply, payload) {
    return reply[kReplySerializer](payload)
  },
  onError: function (reply, err) {
    reply.log.error(err)
  },
  limits: { maxBody: 1024 }
}

// A module object's methods, as in express: res.send is a method of res.
const res = Object.create(null)

res.send = function send (body) {
  return body
}
