<?php
namespace App\Models;

use Illuminate\Database\Eloquent\Model;

/**
 * A registered user.
 */
final class User extends Model implements HasName
{
    use Notifiable;

    /** The full name. */
    public function fullName(): string
    {
        return $this->first . ' ' . strtoupper($this->last);
    }

    public static function make(array $attrs): static
    {
        return new static($attrs);
    }
}

interface HasName
{
    public function fullName(): string;
}

trait Notifiable
{
    public function notify(string $msg): void {}
}

enum Suit: string
{
    case Hearts = 'H';
}

// Builds a user.
function make_user(array $a): User
{
    return User::make($a);
}
