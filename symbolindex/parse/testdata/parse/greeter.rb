require 'json'

# Greetings for people.
module Greeter
  # A person who can be greeted.
  class Person < Base
    attr_reader :name

    # Says hello to other.
    def greet(other)
      puts "hello #{other.name}"
    end

    def self.create(name)
      new(name)
    end
  end

  class Admin::Role
  end

  def shout(text); text.upcase; end
end

def main
  Greeter::Person.create("x").greet(nil)
end
